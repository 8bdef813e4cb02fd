import { InvalidArgumentError } from '../errors.ts';
import { assertOptionKeys } from '../option-keys.ts';
import { peekScript } from '../generated/peek.ts';
import { statsScript } from '../generated/stats.ts';
import { waitingScript } from '../generated/waiting.ts';
import { pairsToObject, parseJobRecord, type JobRecord } from '../job-record.ts';
import { assertJobId } from '../keys.ts';
import { readLimits, type LimitsState } from '../limits.ts';
import { withRedisErrors } from '../redis-connection.ts';
import { assertWholeNumber } from '../whole-number.ts';
import { readPauseState } from './pause.ts';
import type { QueueContext } from './queue-context.ts';

/**
 * The lists and sets a job can be in, for {@link Queue.list}. `pending` is the recipe's list:
 * the jobs of priority 0. `waiting` is every job waiting to start, in the order claims take
 * them: other priorities, pending, kinds set aside while paused or limited, and groups' jobs
 * behind their turn.
 */
export type ListState = 'pending' | 'waiting' | 'processing' | 'delayed' | 'completed' | 'failed' | 'waiting-children' | WaitingPart;

/**
 * The parts of `waiting` that {@link Queue.list} also pages through alone, in claim order:
 * `prioritized` (the lists of priorities other than 0, highest first; stats' `prioritizedDepth`),
 * `parked` (jobs of paused or limited kinds, by kind; `parkedDepth`) and `grouped` (jobs in their
 * groups' lists behind the carriers, in the groups' turns; `groupedDepth`). `waiting-children`
 * lists flow parents waiting for their children, oldest first (`waitingChildrenDepth`).
 */
export type WaitingPart = 'prioritized' | 'parked' | 'grouped';

/** Every {@link ListState}, in the order a page of states shows them. */
export const LIST_STATES: readonly ListState[] = Object.freeze(['pending', 'waiting', 'prioritized', 'grouped', 'parked', 'delayed', 'waiting-children', 'processing', 'completed', 'failed'] as ListState[]);

const WAITING_PARTS: ReadonlySet<ListState> = new Set<ListState>(['waiting', 'prioritized', 'parked', 'grouped']);

/** Throws `JOBS_INVALID_ARGUMENT` (field `state`) unless `state` names a list a job can be in. */
export function assertListState(state: unknown): asserts state is ListState {
  if (!LIST_STATES.includes(state as ListState)) throw new InvalidArgumentError('state', `expected one of ${LIST_STATES.join(', ')}, got ${JSON.stringify(state)}`);
}

/** A snapshot of a queue, taken in one step. */
export interface QueueStats {
  readonly enqueuedTotal: number;
  readonly completedTotal: number;
  /** Jobs dead-lettered (moved to failed). */
  readonly failedTotal: number;
  /** Failed attempts that were retried. */
  readonly retriedTotal: number;
  /** Expired leases returned to pending. */
  readonly reclaimedTotal: number;
  readonly cancelledTotal: number;
  /** Dead-lettered jobs redriven to pending. */
  readonly redrivenTotal: number;
  /** Claimed jobs handed back by workers shutting down. */
  readonly releasedTotal: number;
  /** Running jobs put back to wait by their handler (`ctx.snooze`), without spending an attempt. */
  readonly snoozedTotal: number;
  /** Claimed jobs of a kind their worker did not know, handed back for a worker that does (see `Partition.handOff`). */
  readonly handedOffTotal: number;
  /** Ids found without a hash (or already finished) and dropped. */
  readonly droppedTotal: number;
  /**
   * Failed jobs deleted without an operator's redrive or purge: trimmed off a capped failed
   * list (`failedHistory`), or expired (`failedTtlSeconds`; counted when the id leaves the list).
   * Always 0 with the defaults, which keep every failed job.
   */
  readonly failedDroppedTotal: number;
  /** Jobs deleted by an operator's {@link Queue.remove}. */
  readonly removedTotal: number;
  /** Jobs not started before their expiry, moved to failed (counted in `failedTotal` too). */
  readonly expiredTotal: number;
  /** Jobs a handler's RateLimitedError sent back (see {@link Queue.rateLimited}). */
  readonly rateLimitedTotal: number;
  /** The queue's rate limits and caps (see {@link Queue.setLimits}) and the pushbacks in force. */
  readonly limits: LimitsState;
  /** Groups with jobs waiting for their turn (see the enqueue option `group`). */
  readonly groupsWaiting: number;
  /**
   * Jobs in the groups' lists, behind the job that holds their group's turn (not in
   * `pendingDepth`). Null when more than 10,000 groups wait: counting them takes one read a
   * group, too many for a snapshot taken on every poll.
   */
  readonly groupedDepth: number | null;
  /**
   * Every job waiting to start: `pendingDepth`, `prioritizedDepth`, `parkedDepth` and
   * `groupedDepth` together (what `list('waiting')` pages through); null when `groupedDepth` is.
   */
  readonly waitingDepth: number | null;
  /** True while the queue is paused (see {@link Queue.pause}). */
  readonly paused: boolean;
  /** The kinds paused on their own. */
  readonly pausedKinds: readonly string[];
  /** Jobs waiting in the lists of priorities other than 0 (not in `pendingDepth`). */
  readonly prioritizedDepth: number;
  /** Jobs of paused or limited kinds set aside until their kind may start (not in `pendingDepth`). */
  readonly parkedDepth: number;
  /** Flow parents waiting for their children (status `waiting-children`). */
  readonly waitingChildrenDepth: number;
  /** Jobs in the pending list: those of priority 0, as the recipe sees them. */
  readonly pendingDepth: number;
  readonly processingDepth: number;
  readonly delayedDepth: number;
  readonly completedDepth: number;
  readonly failedDepth: number;
  /** How long the oldest pending job has waited, or null when none is pending. */
  readonly oldestPendingAgeMs: number | null;
  readonly visibilityMs: number;
  /** The Redis server's clock when the snapshot was taken. */
  readonly nowMs: number;
}

/** See {@link Queue.getJob}: from the one context that holds it, or (an id made elsewhere) any of them. */
export async function getJob<P>(holders: readonly QueueContext<P>[], id: string): Promise<JobRecord | null> {
  if (holders.length === 1) return readJob(holders[0] as QueueContext<P>, id);
  const found = await Promise.all(holders.map((ctx) => readJob(ctx, id)));
  return found.find((job) => job !== null) ?? null;
}

async function readJob<P>(ctx: QueueContext<P>, id: string): Promise<JobRecord | null> {
  assertJobId(id);
  await ctx.ready();
  const fields = await withRedisErrors(() => ctx.client.hgetall(ctx.keys.job(id)));
  return Object.keys(fields).length === 0 ? null : parseJobRecord(id, fields);
}

/**
 * See {@link Queue.list}. Over several partitions, their lists one after another (partition 0
 * first), paged as one list: `offset` counts from the start of partition 0's. Each partition's
 * depth is read first, so only the partitions the page falls in are read; on a busy queue the
 * lists move in between, as a single list would between two pages. `waiting` needs no depths:
 * each partition's page says how many of its jobs it passed over.
 */
export async function list<P>(partitions: readonly QueueContext<P>[], state: ListState, options: { offset?: number; limit?: number } = {}): Promise<JobRecord[]> {
  assertOptionKeys<{ offset?: number; limit?: number }>('options', options, { offset: true, limit: true });
  let skip = assertWholeNumber('offset', options.offset ?? 0, 0, Number.MAX_SAFE_INTEGER);
  let left = assertWholeNumber('limit', options.limit ?? 50, 1, 1_000);
  assertListState(state);
  const page: JobRecord[] = [];
  if (WAITING_PARTS.has(state)) {
    for (const ctx of partitions) {
      const part = await waitingPage(ctx, skip, left, state as 'waiting' | WaitingPart);
      page.push(...part.jobs);
      skip -= part.skipped;
      left -= part.taken;
      if (left === 0) break;
    }
    return page;
  }
  if (partitions.length === 1) return listPage(partitions[0] as QueueContext<P>, state as Exclude<ListState, 'waiting' | WaitingPart>, skip, left);
  const field = depthField(state as Exclude<ListState, 'waiting' | WaitingPart>);
  const depths = await Promise.all(partitions.map(async (ctx) => (await readStats(ctx))[field]));
  for (const [index, ctx] of partitions.entries()) {
    const depth = depths[index] as number;
    if (skip >= depth) {
      skip -= depth;
      continue;
    }
    const jobs = await listPage(ctx, state as Exclude<ListState, 'waiting' | WaitingPart>, skip, left);
    page.push(...jobs);
    left -= jobs.length;
    skip = 0;
    if (left === 0) break;
  }
  return page;
}

async function listPage<P>(ctx: QueueContext<P>, state: Exclude<ListState, 'waiting' | WaitingPart>, offset: number, limit: number): Promise<JobRecord[]> {
  const reply = await peek(ctx, state, offset, limit);
  return reply.map((entry) => parseJobRecord(entry[0] as string, pairsToObject(entry, 1)));
}

/** The {@link QueueStats} field that holds the depth of list `state`. */
function depthField(state: Exclude<ListState, 'waiting' | WaitingPart>): `${'pending' | 'processing' | 'delayed' | 'completed' | 'failed' | 'waitingChildren'}Depth` {
  return state === 'waiting-children' ? 'waitingChildrenDepth' : `${state}Depth`;
}

/** A page of {@link list}('waiting'), and how far it got. */
export interface WaitingPage {
  /** The waiting jobs passed over before the page: less than the offset when fewer wait. */
  readonly skipped: number;
  /** The ids the page took, jobs whose hash is gone among them (those are left out of `jobs`). */
  readonly taken: number;
  readonly jobs: JobRecord[];
}

/** One page of every job waiting to start (or of one `part` of them), in claim order (scripts/waiting.lua). */
export async function waitingPage<P>(ctx: QueueContext<P>, offset: number, limit: number, part: 'waiting' | WaitingPart = 'waiting'): Promise<WaitingPage> {
  const k = ctx.keys;
  const args = { jobPrefix: k.jobPrefix, prefix: k.prefix, offset, limit, part: part === 'waiting' ? 'all' : part };
  const [skipped, taken, ...jobs] = await ctx.scripts.run(waitingScript, waitingScript.argv({ pending: k.pending, admission: k.admission }, args));
  return { skipped: Number(skipped), taken: Number(taken), jobs: jobs.map((entry) => parseJobRecord(entry[0] as string, pairsToObject(entry, 1))) };
}

/** A page of one list or of the delayed set, with each job's hash. */
async function peek<P>(ctx: QueueContext<P>, state: Exclude<ListState, 'waiting' | WaitingPart>, offset: number, limit: number): Promise<string[][]> {
  // Pending is claimed from its right end: its oldest jobs are the last ones, read in reverse.
  const pending = state === 'pending';
  const argv = peekScript.argv(
    { list: state === 'waiting-children' ? ctx.keys.waitingChildren : ctx.keys[state] },
    {
      jobPrefix: ctx.keys.jobPrefix,
      type: state === 'delayed' || state === 'waiting-children' ? 'zset' : 'list',
      start: pending ? -(offset + limit) : offset,
      stop: pending ? -(offset + 1) : offset + limit - 1,
      reverse: pending ? '1' : '0',
    },
  );
  return ctx.scripts.run(peekScript, argv);
}

/**
 * See {@link Queue.stats}. Over several partitions: counters and depths summed; the oldest
 * pending age is the largest; paused when any partition is (a pause that failed part way
 * shows), with every kind paused anywhere.
 */
export async function stats<P>(partitions: readonly QueueContext<P>[]): Promise<QueueStats> {
  if (partitions.length === 1) return readStats(partitions[0] as QueueContext<P>);
  return sumStats(await Promise.all(partitions.map((ctx) => readStats(ctx))));
}

function sumStats(all: readonly QueueStats[]): QueueStats {
  const first = all[0] as QueueStats;
  const total = { ...first } as unknown as Record<string, number | null>;
  for (const stats of all.slice(1)) {
    for (const [field, value] of Object.entries(stats) as [keyof QueueStats, number | null][]) {
      if (field === 'visibilityMs' || field === 'paused' || field === 'pausedKinds' || field === 'limits') continue;
      if (field === 'groupedDepth' || field === 'waitingDepth') {
        // Not counted in one partition (too many groups): not counted in the sum either.
        const current = total[field] ?? null;
        total[field] = current === null || value === null ? null : current + value;
        continue;
      }
      if (field === 'nowMs' || field === 'oldestPendingAgeMs') {
        const current = total[field] ?? null;
        total[field] = value === null ? current : current === null ? value : Math.max(current, value);
      } else {
        total[field] = (total[field] as number) + (value as number);
      }
    }
  }
  return {
    ...(total as unknown as QueueStats),
    paused: all.some((stats) => stats.paused),
    pausedKinds: [...new Set(all.flatMap((stats) => stats.pausedKinds))].sort(),
  };
}

/** One partition's snapshot, in one script call. */
async function readStats<P>(ctx: QueueContext<P>): Promise<QueueStats> {
  const k = ctx.keys;
  const argv = statsScript.argv(
    { pending: k.pending, processing: k.processing, delayed: k.delayed, completed: k.completed, failed: k.failed, stats: k.stats, admission: k.admission },
    { jobPrefix: k.jobPrefix, prefix: k.prefix },
  );
  const [nowMs, pending, processing, delayed, completed, failed, oldest, counters, admission, prioritized, parked, groups, grouped, waitingChildren] = await ctx.scripts.run(statsScript, argv);
  const c = pairsToObject(counters);
  const pause = readPauseState(admission);
  const count = (field: string): number => Number(c[field] ?? 0);
  return {
    enqueuedTotal: count('enqueued_total'),
    completedTotal: count('completed_total'),
    failedTotal: count('failed_total'),
    retriedTotal: count('retried_total'),
    reclaimedTotal: count('reclaimed_total'),
    cancelledTotal: count('cancelled_total'),
    releasedTotal: count('released_total'),
    snoozedTotal: count('snoozed_total'),
    handedOffTotal: count('handed_off_total'),
    redrivenTotal: count('redriven_total'),
    droppedTotal: count('dropped_total'),
    failedDroppedTotal: count('failed_dropped_total'),
    removedTotal: count('removed_total'),
    expiredTotal: count('expired_total'),
    rateLimitedTotal: count('rate_limited_total'),
    limits: readLimits(admission),
    groupsWaiting: Number(groups),
    groupedDepth: Number(grouped) < 0 ? null : Number(grouped),
    waitingDepth: Number(grouped) < 0 ? null : Number(pending) + Number(prioritized) + Number(parked) + Number(grouped),
    paused: pause.paused,
    pausedKinds: pause.kinds,
    prioritizedDepth: Number(prioritized),
    parkedDepth: Number(parked),
    waitingChildrenDepth: Number(waitingChildren),
    pendingDepth: Number(pending),
    processingDepth: Number(processing),
    delayedDepth: Number(delayed),
    completedDepth: Number(completed),
    failedDepth: Number(failed),
    oldestPendingAgeMs: Number(oldest) >= 0 ? Math.max(0, Number(nowMs) - Number(oldest)) : null,
    visibilityMs: ctx.options.visibilityMs,
    nowMs: Number(nowMs),
  };
}
