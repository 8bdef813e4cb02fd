import type { HeartbeatReceipt, WorkerOrder } from '@jobs/core/internal';

/** What a worker order steers: the worker's own quiet, resume and concurrency calls. */
export interface SteeredWorker {
  quiet(): Promise<void>;
  resumeClaiming(): void;
  setConcurrency(concurrency: number): void;
}

/**
 * Obeys the orders to one worker (`Queue.quietWorkers`, `resumeWorkers`, `scaleWorkers`),
 * whether heard on the control channel or read back from a heartbeat's reply (a message lost on
 * the way): each is numbered in the worker's registry hash, and obeyed once, the first time it
 * comes. An order older than one obeyed, or repeated, changes nothing; a local call made since
 * stands until the next order.
 */
export class WorkerOrders {
  readonly #id: string;
  readonly #worker: SteeredWorker;
  readonly #onError: (error: unknown, message: string) => void;
  #quietSeq = 0;
  #scaleSeq = 0;

  constructor(id: string, worker: SteeredWorker, onError: (error: unknown, message: string) => void) {
    this.#id = id;
    this.#worker = worker;
    this.#onError = onError;
  }

  /** An order heard on the control channel (those to other workers are left alone). */
  heard(order: WorkerOrder): void {
    if (order.worker !== this.#id) return;
    if (order.op === 'scale') this.#scale(order.seq, order.concurrency);
    else this.#quiet(order.seq, order.op === 'quiet');
  }

  /** The orders stored for this worker, as its heartbeat read them back. */
  stored(receipt: Pick<HeartbeatReceipt, 'quietOrder' | 'scaleOrder'>): void {
    if (receipt.quietOrder !== undefined) this.#quiet(receipt.quietOrder.seq, receipt.quietOrder.value === 1);
    if (receipt.scaleOrder !== undefined) this.#scale(receipt.scaleOrder.seq, receipt.scaleOrder.value);
  }

  #quiet(seq: number, quiet: boolean): void {
    if (seq <= this.#quietSeq) return;
    this.#quietSeq = seq;
    if (quiet) void this.#worker.quiet();
    else this.#worker.resumeClaiming();
  }

  #scale(seq: number, concurrency: number): void {
    if (seq <= this.#scaleSeq) return;
    this.#scaleSeq = seq;
    try {
      this.#worker.setConcurrency(concurrency);
    } catch (error) {
      this.#onError(error, 'a scale order was refused');
    }
  }
}
