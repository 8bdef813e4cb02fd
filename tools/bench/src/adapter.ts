/** A job payload in the benchmark: small, with the time it was sent (performance.now()). */
export interface BenchPayload {
  n: number;
  sentAt: number;
}

/** What the benchmark needs from a queue system. */
export interface QueueAdapter {
  readonly name: string;
  /** What it does per job that the others may not, for the report. */
  readonly guarantees: string;
  /** Enqueues one job and resolves when the system acknowledged it. */
  enqueue(payload: BenchPayload): Promise<void>;
  /** Enqueues a batch in as few round trips as the system allows. */
  enqueueBulk(payloads: readonly BenchPayload[]): Promise<void>;
  /**
   * Starts processing with `concurrency`; `onStart` runs when a handler starts, `onDone` when
   * the system has recorded the job's completion. Resolves once the workers are running.
   */
  startWorkers(concurrency: number, onStart: (payload: BenchPayload) => void, onDone: (payload: BenchPayload) => void): Promise<void>;
  /**
   * As {@link startWorkers}, with the handler (a no-op) run isolated in a pool of `concurrency`
   * threads; only systems that have such a mode implement it.
   */
  startIsolatedWorkers?(concurrency: number, onDone: (payload: BenchPayload) => void): Promise<void>;
  /**
   * As {@link startWorkers}, but the workers are made ready (connected, set up) and claim nothing
   * until the returned function is called: a timed part can then start at the first claim, with
   * the start-up of every worker before it. Only systems that can start paused implement it.
   */
  startPausedWorkers?(concurrency: number, onDone: (payload: BenchPayload) => void): Promise<() => void>;
  /** Stops workers and closes every connection. */
  close(): Promise<void>;
}

/** Makes a fresh adapter on `redisUrl` for queue `queue`. */
export type AdapterFactory = (redisUrl: string, queue: string) => Promise<QueueAdapter>;
