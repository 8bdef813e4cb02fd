/**
 * Collects the calls made in one tick (one burst of callbacks: the replies that came in one
 * socket read, the requests of one HTTP batch...) and sends them as one, at the end of the tick:
 * no call waits for a timer, and a lone call goes out alone, at once. `send` answers every item
 * (a value, or an error for that item alone), or throws for all of them.
 */
export class TickBatcher<I, R> {
  readonly #send: (items: readonly I[]) => Promise<(R | Error)[]>;
  readonly #maxBatch: number;
  #waiting: { item: I; resolve: (value: R) => void; reject: (error: unknown) => void }[] = [];
  #scheduled = false;

  constructor(send: (items: readonly I[]) => Promise<(R | Error)[]>, maxBatch: number) {
    this.#send = send;
    this.#maxBatch = maxBatch;
  }

  /** Sends `item` with the others of this tick; settles with its own answer. */
  add(item: I): Promise<R> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      // A full batch goes at once: Redis runs it while the rest of the tick's calls are prepared.
      if (this.#waiting.length >= this.#maxBatch) {
        this.#flush();
        return;
      }
      if (!this.#scheduled) {
        this.#scheduled = true;
        process.nextTick(() => {
          this.#scheduled = false;
          this.#flush();
        });
      }
    });
  }

  #flush(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (let at = 0; at < waiting.length; at += this.#maxBatch) {
      const batch = waiting.slice(at, at + this.#maxBatch);
      this.#send(batch.map((entry) => entry.item)).then(
        (answers) => {
          batch.forEach((entry, index) => {
            const answer = answers[index] as R | Error;
            if (answer instanceof Error) entry.reject(answer);
            else entry.resolve(answer);
          });
        },
        (error: unknown) => {
          for (const entry of batch) entry.reject(error);
        },
      );
    }
  }
}
