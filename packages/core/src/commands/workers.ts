import { heartbeatScript } from '../generated/heartbeat.ts';
import { workerLeaveScript } from '../generated/worker-leave.ts';
import { workersScript } from '../generated/workers.ts';
import { parseStoredOrder } from '../control-order.ts';
import { pairsToObject } from '../job-record.ts';
import { assertWorkerId } from '../keys.ts';
import { assertWholeNumber } from '../whole-number.ts';
import type { QueueContext } from './queue-context.ts';

/** Job ids a heartbeat lists at most (`running`); `runningCount` says how many run in all. */
export const RUNNING_IDS_MAX = 100;

/** The longest a heartbeat may keep a worker alive (ms): a day. */
const TTL_MAX_MS = 86_400_000;

/**
 * A live worker of a queue, from its last heartbeat into the queue's registry (see
 * {@link Queue.workers}). Every time is ms since the epoch on the Redis clock.
 */
export interface WorkerInfo {
  /** The worker's id (its `workerId`; also the `worker` of its entries in the event log). */
  readonly id: string;
  /** The host it runs on. */
  readonly host: string;
  /** Its process id on that host. */
  readonly pid: number;
  /** The version of `@jobs/worker` it runs (`''` when unknown). */
  readonly version: string;
  /** The kinds it has handlers for. */
  readonly kinds: readonly string[];
  /** Jobs it runs at once at most, now (changed by `worker.setConcurrency` or {@link Queue.scaleWorkers}). */
  readonly concurrency: number;
  /** It claims no new jobs (see `worker.quiet` and {@link Queue.quietWorkers}); its running jobs go on. */
  readonly quiet: boolean;
  /** The ids of the jobs it was running at its last heartbeat (the first 100 of them). */
  readonly running: readonly string[];
  /** How many jobs it was running at its last heartbeat (may exceed `running.length`). */
  readonly runningCount: number;
  /** Its first heartbeat. */
  readonly startedAtMs: number;
  /** Its last heartbeat. */
  readonly lastSeenMs: number;
  /** Until when it counts as alive without another heartbeat (its last heartbeat plus its TTL). */
  readonly aliveUntilMs: number;
}

/** What a worker says of itself in a heartbeat (see {@link sendHeartbeat}). */
export interface WorkerHeartbeat extends Pick<WorkerInfo, 'id' | 'host' | 'pid' | 'version' | 'kinds' | 'concurrency'> {
  /** Whether it claims no new jobs now (default false). */
  readonly quiet?: boolean | undefined;
  /** Its largest batch size (default 0: no batch kinds): a scale below it is refused (see {@link Queue.scaleWorkers}). */
  readonly batchMax?: number | undefined;
  /** The ids of the jobs it runs now (all of them: the heartbeat keeps the first {@link RUNNING_IDS_MAX}). */
  readonly running: readonly string[];
  /** How long it counts as alive without another heartbeat (ms). */
  readonly ttlMs: number;
  /** The Redis time of its first heartbeat, from that heartbeat's reply; absent for the first. */
  readonly startedAtMs?: number | undefined;
}

/** A stored order (see {@link Queue.quietWorkers}), numbered so that the worker obeys each once. */
export interface StoredOrder {
  readonly seq: number;
  /** For a quiet order 1 (quiet) or 0 (resume); for a scale order the concurrency. */
  readonly value: number;
}

/** What a heartbeat's reply says: Redis time, until when the worker counts as alive, and the orders stored for it. */
export interface HeartbeatReceipt {
  readonly nowMs: number;
  readonly aliveUntilMs: number;
  /** The last quiet or resume order stored for the worker, if any. */
  readonly quietOrder: StoredOrder | undefined;
  /** The last scale order stored for the worker, if any. */
  readonly scaleOrder: StoredOrder | undefined;
}

/** See {@link Queue.workers}: from the context that holds the registry (partition 0's). */
export async function readWorkers<P>(ctx: QueueContext<P>): Promise<WorkerInfo[]> {
  const argv = workersScript.argv({ workers: ctx.keys.workers }, { prefix: ctx.keys.prefix });
  const [, ...entries] = await ctx.scripts.run(workersScript, argv, false);
  return entries.map((entry) => parseWorker(entry)).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** One entry of the workers script's reply: the deadline, then the hash's fields and values. */
function parseWorker(entry: readonly string[]): WorkerInfo {
  const f = pairsToObject(entry, 1);
  return {
    id: f.id ?? '',
    host: f.host ?? '',
    pid: Number(f.pid ?? 0),
    version: f.version ?? '',
    kinds: jsonStrings(f.kinds),
    concurrency: Number(f.concurrency ?? 0),
    quiet: f.quiet === '1',
    running: jsonStrings(f.running),
    runningCount: Number(f.running_count ?? 0),
    startedAtMs: Number(f.started_at_ms ?? 0),
    lastSeenMs: Number(f.last_seen_ms ?? 0),
    aliveUntilMs: Number(entry[0]),
  };
}

/** A JSON array of strings from a hash field; anything else (a hand-written field) reads as none. */
function jsonStrings(text: string | undefined): string[] {
  if (text === undefined) return [];
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * Writes worker `beat.id`'s heartbeat into the registry of `ctx`'s queue (a partitioned queue's
 * is partition 0's), alive for `beat.ttlMs` from now (Redis clock). Safe to send again.
 */
export async function sendHeartbeat<P>(ctx: QueueContext<P>, beat: WorkerHeartbeat): Promise<HeartbeatReceipt> {
  assertWorkerId(beat.id);
  const ttlMs = assertWholeNumber('heartbeatTtlMs', beat.ttlMs, 1, TTL_MAX_MS);
  const running = beat.running.slice(0, RUNNING_IDS_MAX);
  const fields = [
    'host', beat.host,
    'pid', String(beat.pid),
    'version', beat.version,
    'kinds', JSON.stringify(beat.kinds),
    'concurrency', String(beat.concurrency),
    'batch_max', String(beat.batchMax ?? 0),
    'quiet', beat.quiet ? '1' : '0',
    'running', JSON.stringify(running),
    'running_count', String(beat.running.length),
  ];
  const argv = heartbeatScript.argv(
    { workers: ctx.keys.workers, worker: ctx.keys.worker(beat.id) },
    { prefix: ctx.keys.prefix, id: beat.id, ttlMs, startedAtMs: beat.startedAtMs ?? '', fields },
  );
  const [nowMs, aliveUntilMs, quietOrder, scaleOrder] = await ctx.scripts.run(heartbeatScript, argv, false);
  return { nowMs: Number(nowMs), aliveUntilMs: Number(aliveUntilMs), quietOrder: parseStoredOrder(quietOrder ?? ''), scaleOrder: parseStoredOrder(scaleOrder ?? '') };
}

/** Takes worker `id` out of the registry of `ctx`'s queue at once. True when it was registered; safe to send again. */
export async function leaveRegistry<P>(ctx: QueueContext<P>, id: string): Promise<boolean> {
  assertWorkerId(id);
  const argv = workerLeaveScript.argv({ workers: ctx.keys.workers, worker: ctx.keys.worker(id) }, { id });
  return Number(await ctx.scripts.run(workerLeaveScript, argv, false)) === 1;
}
