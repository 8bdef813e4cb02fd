import { InvalidArgumentError, JOBS_ERROR_CODES, isJobsError } from './errors.ts';
import { assertOptionKeys } from './option-keys.ts';
import { compareLogIds, LOG_ID_PATTERN, parseLogEntry, type LogItem } from './log-entry.ts';
import { closeClient, duplicateClient, toJobsError, withRedisErrors, type RedisClient } from './redis-connection.ts';
import { assertWholeNumber } from './whole-number.ts';

/** Options of {@link Queue.events}. */
export interface FollowOptions {
  /**
   * Where to start: `'$'` (default) after the newest event when the call resolves, `'0'` at the
   * oldest event the log still holds, or a stream id: after that event (the `id` of the last
   * event a follower delivered, to resume it).
   */
  from?: string;
  /** Most entries read per round trip. Default 100. */
  batch?: number;
  /** Ends the iteration (as {@link EventFollower.close} does). */
  signal?: AbortSignal;
}

/** How long a blocking read and the retries after a lost connection wait at most; what to call once closed. */
interface FollowSettings {
  readonly blockMs: number;
  readonly retryMaxMs: number;
  readonly onClose?: (follower: EventFollower) => void;
}

/** A stream of XREAD or XRANGE: entries as [id, [field, value, ...]]. */
type RawEntries = [string, string[]][];

/**
 * Follows a queue's event log from a cursor: an async iterable of {@link LogItem}s on a
 * connection of its own, waiting in Redis (XREAD BLOCK) when it is caught up. The cursor is the
 * id of the last item delivered; after a lost connection it reads on from there, so nothing is
 * delivered twice and nothing is skipped, and when the capped log has been trimmed past the
 * cursor it delivers a gap marker first. Iterate it once.
 */
export class EventFollower implements AsyncIterable<LogItem> {
  readonly #conn: RedisClient;
  readonly #key: string;
  readonly #batch: number;
  readonly #timing: FollowSettings;
  #cursor: string;
  /** How many entries the log had ever added up to the cursor, when known (see #readAfterCursor). */
  #ordinal: number | undefined;
  #closed = false;
  #iterating = false;
  /** Wakes a retry pause early when the follower closes. */
  #wake: (() => void) | undefined;

  /** @internal Made by {@link followEventLog}. */
  constructor(conn: RedisClient, key: string, start: { cursor: string; ordinal: number | undefined }, batch: number, timing: FollowSettings, signal: AbortSignal | undefined) {
    this.#conn = conn;
    this.#key = key;
    this.#cursor = start.cursor;
    this.#ordinal = start.ordinal;
    this.#batch = batch;
    this.#timing = timing;
    signal?.addEventListener('abort', () => void this.close(), { once: true });
  }

  /** The id of the last item delivered (or where it started): pass it as `from` to resume. */
  get cursor(): string {
    return this.#cursor;
  }

  /** Stops following: an iteration in progress ends, and the connection is closed. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#wake?.();
    // Not QUIT: a blocking read in flight would hold it back for up to blockMs.
    this.#conn.disconnect();
    this.#timing.onClose?.(this);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<LogItem> {
    if (this.#iterating) throw new InvalidArgumentError('follower', 'an event follower is iterated once');
    this.#iterating = true;
    let failures = 0;
    try {
      while (!this.#closed) {
        let items: LogItem[];
        try {
          items = await this.#readAfterCursor();
          failures = 0;
        } catch (error) {
          if (this.#closed) return;
          const typed = toJobsError(error);
          if (!isJobsError(typed, JOBS_ERROR_CODES.REDIS_UNAVAILABLE)) throw typed;
          // The connection is reconnecting (or Redis is away): read again from the cursor.
          failures += 1;
          await this.#pause(Math.min(this.#timing.retryMaxMs, 50 * 2 ** Math.min(failures, 6)));
          continue;
        }
        for (const item of items) {
          if (this.#closed) return;
          this.#cursor = item.type === 'gap' ? item.through : item.id;
          yield item;
        }
        if (items.length === 0 && !this.#closed) {
          // Caught up: wait in Redis for the next entry (read again, with the gap check, above).
          await this.#conn.xread('COUNT', 1, 'BLOCK', this.#timing.blockMs, 'STREAMS', this.#key, this.#cursor).catch((error: unknown) => {
            if (this.#closed) return;
            const typed = toJobsError(error);
            if (!isJobsError(typed, JOBS_ERROR_CODES.REDIS_UNAVAILABLE)) throw typed;
          });
        }
      }
    } finally {
      await this.close();
    }
  }

  /**
   * The entries after the cursor and the log's counters, read in one atomic step, with a gap
   * marker first when entries after the cursor were trimmed before this read. The log is only
   * ever appended to and trimmed from its head, so entry n of all ever added is kept iff
   * n > added - length: once the follower knows the ordinal of its cursor (from its start, or
   * from a read that caught up), the check is exact. Resumed from an id alone, it cannot know
   * the ordinal until then, and reports a gap when the log no longer holds the cursor's entry.
   */
  async #readAfterCursor(): Promise<LogItem[]> {
    const results = await this.#conn.multi().xread('COUNT', this.#batch, 'STREAMS', this.#key, this.#cursor).xinfo('STREAM', this.#key).exec();
    if (results === null) throw new Error('Connection is closed (transaction aborted)');
    const [[readError, read], [, info]] = results as [[Error | null, [string, RawEntries][] | null], [Error | null, unknown]];
    if (readError) throw readError;
    const entries = read?.[0]?.[1] ?? [];
    // XINFO fails on a missing stream (nothing logged yet, or purged): nothing to trim then.
    const stream = Array.isArray(info) ? readStreamInfo(info) : undefined;
    const items: LogItem[] = [];
    if (stream === undefined) return items;
    // Fewer ever added than the cursor's ordinal: the log was deleted and began again.
    if (this.#ordinal !== undefined && this.#ordinal > stream.added) this.#ordinal = undefined;
    const lost = this.#ordinal !== undefined ? this.#ordinal < stream.added - stream.length : stream.first !== undefined && compareLogIds(stream.first, this.#cursor) > 0;
    if (lost && stream.first !== undefined) {
      items.push({ type: 'gap', after: this.#cursor, through: previousLogId(stream.first) });
      this.#ordinal = stream.added - stream.length;
    }
    for (const [id, fields] of entries) items.push(parseLogEntry(id, fields));
    if (this.#ordinal !== undefined) this.#ordinal += entries.length;
    else if (entries.length < this.#batch) this.#ordinal = stream.added;
    return items;
  }

  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }
}

/** The id just before `id` (`<ms>-<seq>`): the last one a gap's follower may have missed. */
function previousLogId(id: string): string {
  const [ms = '0', seq = '0'] = id.split('-');
  if (BigInt(seq) > 0n) return `${ms}-${BigInt(seq) - 1n}`;
  return BigInt(ms) > 0n ? `${BigInt(ms) - 1n}-18446744073709551615` : '0-0';
}

/** What a follower needs of XINFO STREAM: entries ever added, entries kept, the oldest kept id. */
function readStreamInfo(info: readonly unknown[]): { added: number; length: number; first: string | undefined } {
  const first = streamInfoField(info, 'first-entry');
  return { added: Number(streamInfoField(info, 'entries-added') ?? 0), length: Number(streamInfoField(info, 'length') ?? 0), first: first === undefined || first === '' ? undefined : first.split(',')[0] };
}

/** A field of an XINFO STREAM reply (a flat name, value list). */
function streamInfoField(info: readonly unknown[], name: string): string | undefined {
  for (let i = 0; i + 1 < info.length; i += 2) {
    if (info[i] !== name) continue;
    const value = info[i + 1];
    // first-entry is [id, [field, value, ...]] (or nil on an empty stream).
    if (Array.isArray(value)) return String(value[0]);
    return value === null || value === undefined ? undefined : String(value);
  }
  return undefined;
}

/**
 * Starts a follower of the log stream `key`: opens its connection and resolves `from` to a
 * concrete cursor before returning, so a follower started from `'$'` delivers every event
 * appended after this call resolved.
 */
export async function followEventLog(client: RedisClient, key: string, options: FollowOptions, timing: FollowSettings): Promise<EventFollower> {
  assertOptionKeys<FollowOptions>('options', options, { from: true, batch: true, signal: true });
  const from = options.from ?? '$';
  if (typeof from !== 'string' || (from !== '$' && !LOG_ID_PATTERN.test(from))) {
    throw new InvalidArgumentError('from', `expected '$', '0' or a stream id like 1700000000000-0, got ${JSON.stringify(from)}`);
  }
  const batch = assertWholeNumber('batch', options.batch ?? 100, 1, 10_000);
  if (options.signal?.aborted) throw new InvalidArgumentError('signal', 'the signal is already aborted');
  const conn = duplicateClient(client);
  try {
    let start: { cursor: string; ordinal: number | undefined } = { cursor: from, ordinal: undefined };
    if (from === '$' || from === '0') {
      const info = await withRedisErrors(() => conn.xinfo('STREAM', key)).catch((error: unknown) => {
        if (error instanceof Error && /no such key/i.test(error.message)) return undefined;
        throw error;
      });
      const stream = Array.isArray(info) ? readStreamInfo(info) : undefined;
      if (stream === undefined) start = { cursor: '0-0', ordinal: 0 };
      // '$': after the last id ever added (even if trimmed since); '0': just before the oldest kept.
      else if (from === '$') start = { cursor: streamInfoField(info as unknown[], 'last-generated-id') ?? '0-0', ordinal: stream.added };
      else start = { cursor: stream.first === undefined ? (streamInfoField(info as unknown[], 'last-generated-id') ?? '0-0') : previousLogId(stream.first), ordinal: stream.added - stream.length };
    }
    return new EventFollower(conn, key, start, batch, timing, options.signal);
  } catch (error) {
    await closeClient(conn);
    throw error;
  }
}
