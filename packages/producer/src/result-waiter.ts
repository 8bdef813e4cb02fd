import { JobFailedError, JobNotFoundError, TimeoutError, type JobRecord, type RedisClient } from '@jobs/core';
import { closeClient, duplicateClient } from '@jobs/core/internal';

/** Waits `ms`, or less when `woken` resolves; rejects with the reason when `signal` aborts. */
function pause(ms: number, woken: Promise<void>, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = (): void => {
      settle();
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      settle();
      resolve();
    }, ms);
    if (signal?.aborted) {
      onAbort();
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    void woken.then(() => {
      settle();
      resolve();
    });
  });
}

/** How the producer reads a job: `getJob`. */
type ReadJob = (id: string) => Promise<JobRecord | null>;

/** The events channel of the queue (or partition) that holds a job. */
type ChannelOf = (id: string) => string;

/**
 * Waits for jobs to finish. It subscribes to the events channel of the job's queue (of its
 * partition, for a partitioned queue) on a connection of its own (opened on first use, shared by
 * every wait) and only then reads the job, so a job that finishes between the read and the
 * subscription cannot be missed. Pub/sub can drop messages (a reconnect), so each wait also
 * re-reads the job now and then.
 */
export class ResultWaiter {
  readonly #client: RedisClient;
  readonly #channelOf: ChannelOf;
  readonly #readJob: ReadJob;
  readonly #recheckMs: number;
  readonly #wakers = new Map<string, Set<() => void>>();
  /** Per job id, the waits' progress listeners; `seq` is the report's count (`progress_seq`). */
  readonly #progress = new Map<string, Set<(progress: unknown, seq: number) => void>>();
  #subscriber: RedisClient | undefined;
  /** Channels subscribed (or being subscribed). */
  readonly #subscribed = new Map<string, Promise<unknown>>();

  constructor(client: RedisClient, channelOf: ChannelOf, readJob: ReadJob, recheckMs = 1_000) {
    this.#client = client;
    this.#channelOf = channelOf;
    this.#readJob = readJob;
    this.#recheckMs = recheckMs;
  }

  #subscribe(channel: string): Promise<unknown> {
    if (!this.#subscriber) {
      const subscriber = duplicateClient(this.#client);
      subscriber.on('message', (from: string, message: string) => {
        if (!this.#subscribed.has(from)) return;
        let event: { id?: unknown; status?: unknown; progress?: unknown; progress_seq?: unknown };
        try {
          event = JSON.parse(message) as typeof event;
        } catch {
          return;
        }
        const id = event?.id;
        if (typeof id !== 'string') return;
        if (event.status === 'processing' && 'progress' in event) {
          for (const listener of this.#progress.get(id) ?? []) listener(event.progress, Number(event.progress_seq) || 0);
          return;
        }
        for (const wake of this.#wakers.get(id) ?? []) wake();
      });
      this.#subscriber = subscriber;
    }
    let subscribed = this.#subscribed.get(channel);
    if (!subscribed) {
      subscribed = this.#subscriber.subscribe(channel).catch((error: unknown) => {
        this.#subscribed.delete(channel);
        throw error;
      });
      this.#subscribed.set(channel, subscribed);
    }
    return subscribed;
  }

  /**
   * Resolves with the job once it is completed; rejects with `JOBS_JOB_FAILED` when it failed
   * for good or was cancelled, `JOBS_NOT_FOUND` when there is no such job, `JOBS_TIMEOUT` after
   * `timeoutMs`, or the signal's reason when it aborts. `onProgress` hears each progress event
   * of the job, and the progress stored on it when the wait begins: each report once, in order.
   */
  async wait(id: string, timeoutMs: number, signal?: AbortSignal, onProgress?: (progress: unknown) => void): Promise<JobRecord> {
    signal?.throwIfAborted();
    await this.#subscribe(this.#channelOf(id));
    // Reads and events arrive on two connections, so an older report can come after a newer
    // one: each is heard once, in the order the handler made them (by their count).
    let lastSeq = 0;
    let lastProgress: string | undefined;
    const listener = onProgress && ((progress: unknown, seq: number): void => {
      const json = JSON.stringify(progress);
      if (seq > 0 ? seq <= lastSeq : json === lastProgress) return;
      if (seq > 0) lastSeq = seq;
      lastProgress = json;
      try {
        onProgress(progress);
      } catch {
        // The caller's listener failing must not end the wait.
      }
    });
    if (listener) {
      const listeners = this.#progress.get(id) ?? new Set();
      listeners.add(listener);
      this.#progress.set(id, listeners);
    }
    let wake: () => void = () => undefined;
    const wakers = this.#wakers.get(id) ?? new Set();
    this.#wakers.set(id, wakers);
    const deadline = Date.now() + timeoutMs;
    try {
      for (;;) {
        // Armed before the read: an event that lands while we read wakes the next wait at once.
        const woken = new Promise<void>((resolve) => {
          wake = resolve;
        });
        wakers.add(wake);
        const job = await this.#readJob(id);
        if (job === null) throw new JobNotFoundError(id);
        if (listener && job.progress !== undefined && job.status === 'processing') listener(job.progress, Number(job.fields.progress_seq) || 0);
        if (job.status === 'completed') return job;
        if (job.status === 'failed' || job.status === 'cancelled') throw new JobFailedError(id, job.status, job.lastError);
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw new TimeoutError(`waiting for job ${id}`, timeoutMs);
        await pause(Math.min(remaining, this.#recheckMs), woken, signal);
        wakers.delete(wake);
      }
    } finally {
      wakers.delete(wake);
      if (wakers.size === 0) this.#wakers.delete(id);
      if (listener) {
        const listeners = this.#progress.get(id);
        listeners?.delete(listener);
        if (listeners?.size === 0) this.#progress.delete(id);
      }
    }
  }

  /** Closes the subscriber connection. */
  async close(): Promise<void> {
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    this.#subscribed.clear();
    if (subscriber) await closeClient(subscriber);
  }
}
