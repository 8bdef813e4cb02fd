import { DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.ts';
import { InvalidArgumentError } from './errors.ts';
import { assertKindOptions, type Kinds } from './kinds.ts';
import { assertOptionKeys, type OptionKeys } from './option-keys.ts';
import type { RedisConnectionInput } from './redis-connection.ts';
import { assertWholeNumber } from './whole-number.ts';

/** Options of {@link Queue}: where Redis is, the queue, its kinds and its policy. */
export interface QueueConfig<P> extends QueueOptions {
  /** Where Redis is: a URL, ioredis options, or a client you own. */
  redis: RedisConnectionInput;
  /** The queue's name; its keys are `queue:{NAME}:*`. */
  queue: string;
  /** The job kinds this queue carries. */
  kinds: Kinds<P>;
  /** Client name shown by `CLIENT LIST`. Default `jobs:<queue>`. */
  connectionName?: string;
  /**
   * For connections @jobs opens (not a client you pass): a command without an answer for this
   * long fails with `JOBS_REDIS_UNAVAILABLE` instead of waiting for Redis forever. Default 10 s.
   */
  commandTimeoutMs?: number;
  /**
   * Partitions: each its own queue and hash slot, for a queue too hot for one Redis shard.
   * Default 1, the plain queue. See {@link Queue}.
   */
  partitions?: number;
  /**
   * Appended to every id this queue makes (each partition of a partitioned queue marks its ids
   * with `.p<N>`, so a job's partition can be told from its id). Default none; refused with
   * more than one partition.
   */
  idSuffix?: string;
  /**
   * This process's id in the event log (see {@link QueueOptions.eventLog}): the `worker` of the
   * claims, completions, failures and releases it makes. 1 to 128 printable characters. A
   * worker names itself; default none.
   */
  workerId?: string;
  /**
   * Claims also return each job's stored `traceparent` (`ClaimedJob.traceparent`): for a worker
   * that traces (`@jobs/worker` sets it when its `tracing` is on). Off by default, and then a
   * claim reads nothing more than it needs to run the job.
   */
  claimTraceparent?: boolean;
}

/** A queue's policy. Kinds may override `maxAttempts`, `visibilityMs` and `backoff`. */
export interface QueueOptions {
  /** Lease length: how long a claim stays valid unless renewed. Default 30 s. */
  visibilityMs?: number;
  /** Claims allowed before a job is dead-lettered. Default 3. */
  maxAttempts?: number;
  /** Delay between attempts. Default exponential from 1 s to 1 h, 20% jitter. */
  backoff?: BackoffPolicy;
  /**
   * Completed ids kept in the history list. Default 10,000; 0 keeps none. An id trimmed off the
   * history takes its hash with it, so results are readable until then or until their TTL. With
   * 0, a completed job's hash is deleted as it completes (its result is not kept), the cheapest
   * completion: for queues whose results nobody reads back.
   */
  completedHistory?: number;
  /** Seconds a completed job's hash lives. Default 1 day; 0 = until trimmed off the history. */
  completedTtlSeconds?: number;
  /**
   * Dead-lettered jobs kept in the failed list. Default `Infinity`: every failed job is kept
   * until an operator redrives it (`retry`) or deletes it (`purge`), since a dead letter is the
   * evidence of an incident. A number caps the list: the oldest failed jobs past it are deleted,
   * and each is counted in `stats().failedDroppedTotal`.
   */
  failedHistory?: number;
  /**
   * Seconds a failed job's hash lives. Default 0: no expiry. With a TTL, an expired failed job
   * is counted in `stats().failedDroppedTotal` when its id leaves the failed list
   * (`tidyHistory`, which the reclaimer runs every sweep, a trim, or `retry` of its id), not at
   * the moment Redis expires it.
   */
  failedTtlSeconds?: number;
  /** Seconds a cancelled job's hash lives. Default 1 day. */
  cancelledTtlSeconds?: number;
  /** Largest result JSON accepted on complete, in bytes. Default 256 KiB. */
  maxResultBytes?: number;
  /** How long an idempotency key holds, in ms. Default 24 h. */
  idempotencyTtlMs?: number;
  /** Publish the recipe's events on `queue:{NAME}:events`. Default true. */
  events?: boolean;
  /**
   * The durable event log: every state change (enqueued, claimed, progress, completed, retried,
   * failed, reclaimed, cancelled, expired, promoted, released, redriven) appended, by the script that makes it,
   * to the stream `queue:{NAME}:log`, capped at about `maxLen` entries (`XADD MAXLEN ~`), and
   * each job's last 64 entry ids kept in its hash for its timeline. Entries carry the job id,
   * the attempt, the worker's id and the error code, never a payload or result. `true` = on
   * with the default cap (100,000). Default off (its cost per job is in docs/BENCHMARKS.md).
   */
  eventLog?: boolean | EventLogOptions;
  /**
   * The metrics history (`queue.history()`, `jobsctl stats --since`, the dashboard's charts):
   * per kind, jobs enqueued, completed, failed and retried and their run times, per minute for
   * 24 hours and per hour for 14 days, in a string of fixed size per kind in Redis. Enqueues are
   * counted by the enqueue scripts; a worker counts its outcomes in memory and adds them once per
   * heartbeat interval (and as it closes), so a worker killed without closing loses at most its
   * last interval. Set it on producers and workers alike. Default off: then nothing is counted
   * or written.
   */
  metricsHistory?: boolean;
  /**
   * Durable mode. Redis replicates asynchronously, so a write acknowledged by the primary can
   * vanish in a failover. With `replicas` > 0 an enqueue, a completion and a failure are
   * acknowledged only once that many replicas hold them (Redis `WAIT`, in the same round trip);
   * past `timeoutMs` (default 1 s) the call reports `JOBS_NOT_REPLICATED`. Default off.
   */
  durability?: DurabilityOptions;
  /**
   * Each job's attempt history (`queue.attempts(id)`): every attempt that ended without completing
   * (retried, failed, reclaimed, released, rate limited) is recorded beside the job's hash with its
   * worker, times, outcome and error (with its stack), written by the script that ends it and
   * deleted or expired with the hash. Default `{ keep: 10, stackBytes: 8192 }`; `false` records
   * none (the last error's form, `JobRecord.error`, is kept all the same). Costs nothing on an
   * attempt that completes.
   */
  attemptHistory?: AttemptHistoryOptions | false;
  /**
   * Each job's log lines (a handler's `ctx.log(...)`, `queue.logs(id)`), stored beside the job's
   * hash, fenced by the claim, deleted or expired with the hash. Default `{ lines: 200, lineBytes:
   * 1024 }`; `false` stores none.
   */
  jobLogs?: JobLogsOptions | false;
}

/** See {@link QueueOptions.attemptHistory}. */
export interface AttemptHistoryOptions {
  /** Ended attempts kept per job, the latest; older ones are cut and counted (`trimmed`). 1 to 1,000, default 10. */
  keep?: number;
  /** Bytes (UTF-8) kept of each stack, of the error and of each of its causes. 0 (no stacks) to 65,536, default 8,192. */
  stackBytes?: number;
}

/** See {@link QueueOptions.jobLogs}. */
export interface JobLogsOptions {
  /** Lines kept per job, the latest; older ones are cut and counted (`trimmed`). 1 to 10,000, default 200. */
  lines?: number;
  /** Bytes (UTF-8) kept of each line, cut beyond. 16 to 65,536, default 1,024. */
  lineBytes?: number;
}

/** See {@link QueueOptions.durability}. */
export interface DurabilityOptions {
  /** Replicas that must hold a write before it is acknowledged. 0 = off. */
  replicas: number;
  /** How long to wait for them, in ms. Default 1,000. */
  timeoutMs?: number;
}

/** See {@link QueueOptions.eventLog}. */
export interface EventLogOptions {
  /** About how many entries the stream keeps (trimmed by whole nodes: `MAXLEN ~`). Default 100,000. */
  maxLen?: number;
}

/** The default cap of the event log. */
export const DEFAULT_EVENT_LOG_MAX_LEN = 100_000;

/** {@link QueueOptions} with every default filled in. */
export type ResolvedQueueOptions = Required<Omit<QueueOptions, 'durability' | 'eventLog' | 'attemptHistory' | 'jobLogs'>> & {
  durability: Required<DurabilityOptions>;
  /** The attempt history's caps; `keep` 0 when it is off. */
  attemptHistory: Required<AttemptHistoryOptions>;
  /** The job logs' caps; `lines` 0 when they are off. */
  jobLogs: Required<JobLogsOptions>;
  /** The event log's cap, or false when it is off. */
  eventLog: Required<EventLogOptions> | false;
};

const DAY_SECONDS = 86_400;

/** The keys of {@link QueueOptions}: any other is refused. */
export const QUEUE_OPTION_KEYS: OptionKeys<QueueOptions> = {
  visibilityMs: true,
  maxAttempts: true,
  backoff: true,
  completedHistory: true,
  completedTtlSeconds: true,
  failedHistory: true,
  failedTtlSeconds: true,
  cancelledTtlSeconds: true,
  maxResultBytes: true,
  idempotencyTtlMs: true,
  events: true,
  eventLog: true,
  metricsHistory: true,
  durability: true,
  attemptHistory: true,
  jobLogs: true,
};

/** What one partition of a queue is made with: the queue's options, for its own name. */
export type PartitionOptions<P> = Omit<QueueConfig<P>, 'partitions'>;

/** The keys of {@link PartitionOptions}: any other is refused. */
export const PARTITION_OPTION_KEYS: OptionKeys<PartitionOptions<unknown>> = {
  ...QUEUE_OPTION_KEYS,
  redis: true,
  queue: true,
  kinds: true,
  connectionName: true,
  commandTimeoutMs: true,
  idSuffix: true,
  workerId: true,
  claimTraceparent: true,
};

/** The keys of {@link QueueConfig}: any other is refused. */
export const QUEUE_CONFIG_KEYS: OptionKeys<QueueConfig<unknown>> = { ...PARTITION_OPTION_KEYS, partitions: true };

/** Fills in defaults and checks every value. */
export function resolveQueueOptions(options: QueueOptions): ResolvedQueueOptions {
  assertKindOptions(options, 'options');
  const resolved: ResolvedQueueOptions = {
    visibilityMs: options.visibilityMs ?? 30_000,
    maxAttempts: options.maxAttempts ?? 3,
    backoff: options.backoff ?? DEFAULT_BACKOFF,
    completedHistory: options.completedHistory ?? 10_000,
    completedTtlSeconds: options.completedTtlSeconds ?? DAY_SECONDS,
    failedHistory: options.failedHistory ?? Number.POSITIVE_INFINITY,
    failedTtlSeconds: options.failedTtlSeconds ?? 0,
    cancelledTtlSeconds: options.cancelledTtlSeconds ?? DAY_SECONDS,
    maxResultBytes: options.maxResultBytes ?? 256 * 1024,
    idempotencyTtlMs: options.idempotencyTtlMs ?? DAY_SECONDS * 1_000,
    events: options.events ?? true,
    durability: resolveDurability(options.durability),
    eventLog: resolveEventLog(options.eventLog),
    attemptHistory: resolveAttemptHistory(options.attemptHistory),
    jobLogs: resolveJobLogs(options.jobLogs),
    metricsHistory: options.metricsHistory ?? false,
  };
  const wholeNumber = (name: keyof QueueOptions, min: number, max: number): number => assertWholeNumber(`options.${name}`, resolved[name], min, max);
  wholeNumber('completedHistory', 0, 10_000_000);
  wholeNumber('completedTtlSeconds', 0, 365 * DAY_SECONDS);
  const failedHistory: unknown = resolved.failedHistory;
  if (failedHistory !== Number.POSITIVE_INFINITY && !(Number.isInteger(failedHistory) && (failedHistory as number) >= 0 && (failedHistory as number) <= 10_000_000)) {
    throw new InvalidArgumentError('options.failedHistory', `expected Infinity (keep every failed job) or a whole number from 0 to 10000000, got ${typeof failedHistory === 'string' ? JSON.stringify(failedHistory) : String(failedHistory)}`);
  }
  wholeNumber('failedTtlSeconds', 0, 365 * DAY_SECONDS);
  wholeNumber('cancelledTtlSeconds', 0, 365 * DAY_SECONDS);
  wholeNumber('maxResultBytes', 1, 64 * 1024 * 1024);
  wholeNumber('idempotencyTtlMs', 1, 365 * DAY_SECONDS * 1_000);
  if (typeof resolved.events !== 'boolean') throw new InvalidArgumentError('options.events', 'expected true or false');
  if (typeof resolved.metricsHistory !== 'boolean') throw new InvalidArgumentError('options.metricsHistory', 'expected true or false');
  return resolved;
}

function resolveEventLog(eventLog: QueueOptions['eventLog']): Required<EventLogOptions> | false {
  if (eventLog === undefined || eventLog === false) return false;
  if (eventLog === true) return { maxLen: DEFAULT_EVENT_LOG_MAX_LEN };
  if (typeof eventLog !== 'object' || eventLog === null) throw new InvalidArgumentError('options.eventLog', 'expected true, false or { maxLen? }');
  assertOptionKeys<EventLogOptions>('options.eventLog', eventLog, { maxLen: true });
  return { maxLen: assertWholeNumber('options.eventLog.maxLen', eventLog.maxLen ?? DEFAULT_EVENT_LOG_MAX_LEN, 10, 100_000_000) };
}

function resolveAttemptHistory(history: QueueOptions['attemptHistory']): Required<AttemptHistoryOptions> {
  if (history === false) return { keep: 0, stackBytes: 0 };
  if (history === undefined) return { keep: 10, stackBytes: 8_192 };
  if (typeof history !== 'object' || history === null) throw new InvalidArgumentError('options.attemptHistory', 'expected false or { keep?, stackBytes? }');
  assertOptionKeys<AttemptHistoryOptions>('options.attemptHistory', history, { keep: true, stackBytes: true });
  return {
    keep: assertWholeNumber('options.attemptHistory.keep', history.keep ?? 10, 1, 1_000),
    stackBytes: assertWholeNumber('options.attemptHistory.stackBytes', history.stackBytes ?? 8_192, 0, 65_536),
  };
}

function resolveJobLogs(logs: QueueOptions['jobLogs']): Required<JobLogsOptions> {
  if (logs === false) return { lines: 0, lineBytes: 0 };
  if (logs === undefined) return { lines: 200, lineBytes: 1_024 };
  if (typeof logs !== 'object' || logs === null) throw new InvalidArgumentError('options.jobLogs', 'expected false or { lines?, lineBytes? }');
  assertOptionKeys<JobLogsOptions>('options.jobLogs', logs, { lines: true, lineBytes: true });
  return {
    lines: assertWholeNumber('options.jobLogs.lines', logs.lines ?? 200, 1, 10_000),
    lineBytes: assertWholeNumber('options.jobLogs.lineBytes', logs.lineBytes ?? 1_024, 16, 65_536),
  };
}

function resolveDurability(durability: DurabilityOptions | undefined): Required<DurabilityOptions> {
  if (durability === undefined) return { replicas: 0, timeoutMs: 1_000 };
  if (typeof durability !== 'object' || durability === null) throw new InvalidArgumentError('options.durability', 'expected { replicas, timeoutMs? }');
  assertOptionKeys<DurabilityOptions>('options.durability', durability, { replicas: true, timeoutMs: true });
  return {
    replicas: assertWholeNumber('options.durability.replicas', durability.replicas, 0, 16),
    timeoutMs: assertWholeNumber('options.durability.timeoutMs', durability.timeoutMs ?? 1_000, 1, 60_000),
  };
}

/** The failed history cap as the scripts take it: -1 for no cap. */
export function failedHistoryCap(options: ResolvedQueueOptions): number {
  return options.failedHistory === Number.POSITIVE_INFINITY ? -1 : options.failedHistory;
}
