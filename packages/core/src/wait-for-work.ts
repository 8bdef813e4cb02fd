import type { LuaScript } from './lua-script.ts';
import type { RedisClient } from './redis-connection.ts';
import { sendScript } from './script-sender.ts';
import { writeTogether } from './write-coalescing.ts';

/**
 * How long an aborted wait still listens for its script's reply once the blocking connection is
 * dropped: a reply already read arrives within a turn or two, and a command that a cluster
 * client still held back (its connection not yet up) is never answered, nor rejected.
 */
const ABORT_SETTLE_MS = 250;

/** A BLMOVE timeout: it takes seconds, and 0 would mean forever, so never below 10 ms. */
function blockSeconds(ms: number): string {
  return Math.max(0.01, ms / 1000).toFixed(3);
}

/**
 * Waits, without polling, until the pending list may hold work. It blocks on Redis with
 * `BLMOVE pending pending RIGHT RIGHT`: a move from the right end back onto the right end,
 * which leaves the list as it was but returns as soon as any client (ours, or a recipe client
 * doing LPUSH) pushes an id, or at once when ids are already there. The claim itself is then
 * made by the claim script, atomically.
 *
 * One blocking connection of its own, so no other command ever queues behind a blocked one
 * (the recipe's B14), and one wait at a time: concurrent callers share the wait in flight.
 * A wait may name another list to block on (a paused queue's workers wait on its resume list:
 * its pending list may hold jobs that must not start yet, and would end every wait at once).
 */
export class WorkWaiter {
  readonly #connect: () => RedisClient;
  readonly #pendingKey: string;
  readonly #maxBlockMs: number;
  #client: RedisClient | undefined;
  #inflight: Promise<void> | undefined;
  /** Stops the run in flight (see waitThenRun) from waiting for a reply after its connection is dropped. */
  #abandon: (() => void) | undefined;
  #closed = false;

  /** `maxBlockMs` bounds one blocking call; a longer wait is several calls in a row. */
  constructor(connect: () => RedisClient, pendingKey: string, maxBlockMs = 5_000) {
    this.#connect = connect;
    this.#pendingKey = pendingKey;
    this.#maxBlockMs = maxBlockMs;
  }

  /**
   * Resolves when pending (or `key`) may hold work, after at most about `timeoutMs`, or when
   * `signal` aborts or the waiter closes. Never rejects: the caller tries to claim either way.
   */
  wait(timeoutMs: number, signal?: AbortSignal, key = this.#pendingKey): Promise<void> {
    if (this.#closed || signal?.aborted) return Promise.resolve();
    this.#inflight ??= this.#block(Math.min(timeoutMs, this.#maxBlockMs), key).finally(() => {
      this.#inflight = undefined;
    });
    return new Promise<void>((resolve) => {
      // A caller whose deadline comes before the shared wait ends stops waiting on time.
      const timer = setTimeout(done, timeoutMs + 5);
      const onAbort = (): void => done();
      signal?.addEventListener('abort', onAbort, { once: true });
      void this.#inflight?.then(done);
      function done(): void {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }
    });
  }

  /**
   * Waits like {@link wait} and then runs `script` (with `argv` from its generated builder) right behind the blocking call, pipelined on
   * the same connection: Redis runs it the moment the wait ends, so a worker woken by a push
   * claims its job without another round trip. Returns the script's reply; `null` when an abort or
   * a close ended the wait with nothing run; `undefined` when
   * another wait was already in flight (the caller then waited on that one, and runs its script
   * itself). An abort ends the wait at once by dropping the blocking connection: the script then
   * never runs, or has run and its reply is returned, so nothing it claimed goes unseen.
   * `key`: the list to block on (default pending).
   */
  async waitThenRun<R>(timeoutMs: number, script: LuaScript<never, never, R>, argv: string[], signal?: AbortSignal, key = this.#pendingKey): Promise<R | null | undefined> {
    if (this.#closed || signal?.aborted) return undefined;
    if (this.#inflight) {
      await this.wait(timeoutMs, signal);
      return undefined;
    }
    const client = this.#blockingClient();
    // Two commands in one write on the blocking connection: Redis reads the script only once
    // BLMOVE lets go of the connection. (Not an ioredis pipeline: making one copies every
    // registered command onto it, a few kilobytes per wake.)
    const sent = writeTogether(client, () => {
      void client.blmove(key, key, 'RIGHT', 'RIGHT', blockSeconds(Math.min(timeoutMs, this.#maxBlockMs))).catch(() => undefined);
      return sendScript(client, script, argv, false);
    });
    const abandoned = new Promise<undefined>((resolve) => {
      this.#abandon = () => setTimeout(() => resolve(undefined), ABORT_SETTLE_MS);
    });
    const onAbort = (): void => {
      if (this.#client === client) this.#client = undefined;
      client.disconnect();
      this.#abandon?.();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const run = Promise.race([
      sent.then(
        (reply) => reply,
        () => undefined,
      ),
      abandoned,
    ]);
    this.#inflight = run.then(() => undefined);
    try {
      const reply = await run;
      if (reply === undefined && !this.#closed && !signal?.aborted) {
        // A dropped connection: the caller's own claim finds out what is true, after a pause.
        await new Promise((resolve) => setTimeout(resolve, Math.min(timeoutMs, 100)));
        return undefined;
      }
      // Ended by an abort or a close: nothing was claimed, and nothing should be.
      return reply ?? null;
    } finally {
      this.#inflight = undefined;
      this.#abandon = undefined;
      signal?.removeEventListener('abort', onAbort);
    }
  }

  #blockingClient(): RedisClient {
    this.#client ??= this.#connect();
    return this.#client;
  }

  async #block(timeoutMs: number, key: string): Promise<void> {
    try {
      await this.#blockingClient().blmove(key, key, 'RIGHT', 'RIGHT', blockSeconds(timeoutMs));
    } catch {
      // A dropped connection or a close: the caller's claim attempt finds out what is true.
      if (!this.#closed) await new Promise((resolve) => setTimeout(resolve, Math.min(timeoutMs, 100)));
    }
  }

  /** Ends a wait in flight and closes the blocking connection. */
  close(): void {
    this.#closed = true;
    this.#client?.disconnect();
    this.#client = undefined;
    this.#abandon?.();
  }
}
