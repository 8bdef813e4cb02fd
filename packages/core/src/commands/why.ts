import { whyScript } from '../generated/why.ts';
import type { JobStatus } from '../job-record.ts';
import { assertJobId } from '../keys.ts';
import type { QueueContext } from './queue-context.ts';
import { readWorkers } from './workers.ts';

/**
 * Every reason {@link Queue.why} gives, by code, with its numbers. Times are Unix milliseconds
 * on the Redis server's clock; `null` where the state does not record one.
 */
export interface WhyReasonFields {
  /** The whole queue is paused (`Queue.pause()`): no claim takes anything. `pausedBy`: the pause's `by` label, when it gave one. */
  'queue-paused': { readonly sinceMs: number | null; readonly pausedBy?: string };
  /** The job's kind is paused (`Queue.pause({ kind })`): claims set its jobs aside. `pausedBy` as for `queue-paused`. */
  'kind-paused': { readonly kind: string; readonly sinceMs: number | null; readonly pausedBy?: string };
  /**
   * A rate limit has no room: its sliding window is full (`max` starts in the last `windowMs`),
   * or, `spread`, its next start is not due yet (starts spread evenly, up to `burst` at once);
   * the next start may come at `untilMs`. `scope` says whose limit (`kind` or `group` names it).
   */
  'rate-limited': {
    readonly scope: 'queue' | 'kind' | 'group';
    readonly kind?: string;
    readonly group?: string;
    readonly max: number;
    readonly windowMs: number;
    readonly untilMs: number;
    readonly spread?: boolean;
    readonly burst?: number;
  };
  /** A handler said the service behind this kind pushed back (`RateLimitedError`), until `untilMs`. */
  'pushed-back': { readonly kind: string; readonly untilMs: number };
  /** The queue's own concurrency cap is full, held by the jobs of `heldBy` (as for `kind-cap-full`). */
  'queue-cap-full': { readonly cap: number; readonly heldBy: readonly string[]; readonly more: boolean; readonly freesAtMs: number | null };
  /**
   * The kind's concurrency cap is full: live leases hold its `cap` slots, those of the jobs of
   * `heldBy` (at most 100 ids; `more`: others hold slots too), and a slot frees at `freesAtMs`.
   */
  'kind-cap-full': { readonly kind: string; readonly cap: number; readonly heldBy: readonly string[]; readonly more: boolean; readonly freesAtMs: number | null };
  /** The group's concurrency cap is full, held by the jobs of `heldBy` (as for `kind-cap-full`). */
  'group-cap-full': { readonly group: string; readonly cap: number; readonly heldBy: readonly string[]; readonly more: boolean; readonly freesAtMs: number | null };
  /** A flow's parent: `left` children have not settled yet, those of `children` (at most 100 ids). */
  'waiting-children': { readonly left: number; readonly children: readonly string[] };
  /** Delayed until `untilMs`: enqueued with a delay, or (`retry`, after `attempts` attempts) a retry in its backoff. */
  delayed: { readonly untilMs: number; readonly retry: boolean; readonly attempts: number };
  /** `jobs` jobs wait at a priority above the job's `priority`: claims take them first. */
  'behind-higher-priority': { readonly jobs: number; readonly priority: number };
  /**
   * Waiting in line: `ahead` jobs are nearer the claim end of its list (`pending`, or its
   * priority's list); `atLeast`: the list is longer than the look scans, and more may be.
   */
  queued: { readonly list: 'pending' | 'priority'; readonly priority: number; readonly ahead: number; readonly atLeast: boolean };
  /** Set aside (parked) while its kind is paused or limited, with `ahead` parked jobs of the kind before it. */
  parked: { readonly kind: string; readonly ahead: number };
  /** Waiting in its group's list for the group's turn (`turnAtMs`: when it may next be taken), `ahead` jobs of the group before it. */
  'group-turn': { readonly group: string; readonly ahead: number; readonly turnAtMs: number | null };
  /** Pending or delayed, yet in none of the lists claims read (a foreign client's job half written, or lost). */
  'not-listed': Record<never, never>;
  /** Its ttl passed at `expiresAtMs`: failed at `atMs`, or (`atMs` null) failed by the first claim to meet it. */
  expired: { readonly expiresAtMs: number | null; readonly atMs: number | null };
  /** Running: claimed by `worker` (null when the event log is off or names none), its lease until `leaseExpiresAtMs`. */
  running: { readonly worker: string | null; readonly claimedAtMs: number | null; readonly leaseExpiresAtMs: number | null };
  /**
   * Waiting to start (pending or delayed), but no worker alive in the queue's registry (see
   * `Queue.workers`) handles its kind; `liveWorkers` are alive for other kinds. Workers that send
   * no heartbeats are not counted.
   */
  'no-live-worker': { readonly kind: string; readonly liveWorkers: number };
  /** Completed at `atMs`. */
  completed: { readonly atMs: number | null };
  /** Failed for good at `atMs` after `attempts` attempts, with its last error. */
  failed: { readonly atMs: number | null; readonly error: string; readonly attempts: number };
  /** Cancelled at `atMs`. */
  cancelled: { readonly atMs: number | null };
}

/** A reason's code: the keys of {@link WhyReasonFields}. */
export type WhyReasonCode = keyof WhyReasonFields;

/** One reason a job is where it is: its `code` and that code's numbers (see {@link WhyReasonFields}). */
export type WhyReason = { [C in WhyReasonCode]: { readonly code: C } & WhyReasonFields[C] }[WhyReasonCode];

const CODES: { readonly [C in WhyReasonCode]: true } = {
  'queue-paused': true,
  'kind-paused': true,
  'rate-limited': true,
  'pushed-back': true,
  'queue-cap-full': true,
  'kind-cap-full': true,
  'group-cap-full': true,
  'waiting-children': true,
  delayed: true,
  'behind-higher-priority': true,
  queued: true,
  parked: true,
  'group-turn': true,
  'not-listed': true,
  'no-live-worker': true,
  expired: true,
  running: true,
  completed: true,
  failed: true,
  cancelled: true,
};

/** Every {@link WhyReasonCode}, in the order of {@link WhyReasonFields}. */
export const WHY_REASON_CODES: readonly WhyReasonCode[] = Object.freeze(Object.keys(CODES) as WhyReasonCode[]);

/** What {@link Queue.why} says of a job: its status and the reasons, in the order they apply. */
export interface JobWhy {
  readonly id: string;
  /** Its status; a hash written by a foreign client may hold a value outside {@link JobStatus}. */
  readonly status: JobStatus | (string & {});
  /** Its kind (the hash's, else its payload's), if it has one. */
  readonly kind: string | undefined;
  /** When the look was taken (ms, Redis clock): the reasons' times compare with this. */
  readonly atMs: number;
  /** Why it is where it is: empty only for a status this package does not know. */
  readonly reasons: readonly WhyReason[];
}

/**
 * See {@link Queue.why}: from the one context that holds it, or (an id made elsewhere) any of
 * them; `registry` is the context that keeps the queue's worker registry (partition 0).
 */
export async function why<P>(holders: readonly QueueContext<P>[], id: string, registry: QueueContext<P>): Promise<JobWhy | null> {
  if (holders.length === 1) return whyIn(holders[0] as QueueContext<P>, id, registry);
  const found = await Promise.all(holders.map((ctx) => whyIn(ctx, id, registry)));
  return found.find((answer) => answer !== null) ?? null;
}

async function whyIn<P>(ctx: QueueContext<P>, id: string, registry: QueueContext<P>): Promise<JobWhy | null> {
  assertJobId(id);
  const { keys } = ctx;
  const here = ctx === registry;
  const argv = whyScript.argv(
    { job: keys.job(id), pending: keys.pending, delayed: keys.delayed, leases: keys.leases, admission: keys.admission, log: keys.log },
    { prefix: keys.prefix, id, registry: here ? '1' : '0' },
  );
  const reply = await ctx.scripts.run(whyScript, argv);
  if (reply === '' || reply === null) return null;
  const answer = decodeWhy(id, String(reply));
  return here ? answer : withRegistry(answer, registry);
}

/**
 * The `no-live-worker` look for a job on another partition than the registry's (a cluster
 * keeps them on other nodes): a second read, of partition 0's registry.
 */
async function withRegistry<P>(answer: JobWhy, registry: QueueContext<P>): Promise<JobWhy> {
  const { kind } = answer;
  if (kind === undefined || (answer.status !== 'pending' && answer.status !== 'delayed') || answer.reasons.some((r) => r.code === 'expired')) return answer;
  const workers = await readWorkers(registry);
  if (workers.some((worker) => worker.kinds.includes(kind))) return answer;
  return { ...answer, reasons: [...answer.reasons, { code: 'no-live-worker', kind, liveWorkers: workers.length }] };
}

/** The script's JSON reply as a {@link JobWhy}; a reason with a code this version does not know is left out. */
function decodeWhy(id: string, text: string): JobWhy {
  const raw = JSON.parse(text) as { status: string; kind?: string; now: number; reasons: unknown };
  // cjson writes an empty array as {}: every array field is read as one either way.
  const reasons = listOf(raw.reasons)
    .filter((reason): reason is { code: WhyReasonCode } => typeof reason === 'object' && reason !== null && Object.hasOwn(CODES, (reason as { code?: unknown }).code as string))
    .map((reason) => {
      const fixed: Record<string, unknown> = { ...reason };
      for (const field of ['heldBy', 'children']) if (field in fixed) fixed[field] = listOf(fixed[field]);
      return fixed as unknown as WhyReason;
    });
  return { id, status: raw.status, kind: raw.kind, atMs: raw.now, reasons };
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
