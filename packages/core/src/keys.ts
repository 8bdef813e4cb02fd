import { InvalidArgumentError } from './errors.ts';

/**
 * The key schema: the single source of truth for every Redis key and channel of a queue.
 *
 * For queue `NAME` every key is `queue:{NAME}:...`. The braces are a Redis Cluster hash tag, so
 * all of a queue's keys share one slot and its scripts stay atomic; and a redis.io recipe client
 * started with queue name `{NAME}` reads and writes exactly these keys:
 *
 * | key | type | from the recipe? |
 * |---|---|---|
 * | `queue:{NAME}:pending` | list: LPUSH on the left, claimed from the right | yes |
 * | `queue:{NAME}:processing` | list: claimed ids, newest claim at the head | yes |
 * | `queue:{NAME}:completed` | list: capped history, newest first | yes |
 * | `queue:{NAME}:failed` | list: dead letters, newest first (kept unless `failedHistory` caps them) | yes |
 * | `queue:{NAME}:job:<id>` | hash: the job | yes |
 * | `queue:{NAME}:job:<id>#attempts` | list: the job's ended attempts, oldest first, capped (`attemptHistory`); lives and dies with the hash (scripts/lib/job-trail.lua) | ours |
 * | `queue:{NAME}:job:<id>#logs` | list: the job's `ctx.log` lines, oldest first, capped (`jobLogs`); lives and dies with the hash | ours |
 * | `queue:{NAME}:events` | pub/sub channel, `{"id","status"}` messages | yes |
 * | `queue:{NAME}:wake` | pub/sub channel: ms until a delayed job just added is due, when it is the first due | ours |
 * | `queue:{NAME}:control` | pub/sub channel: JSON orders to the queue's workers (`{"op":"cancel","id","token"}`: stop running a job cancelled meanwhile; `{"op":"quiet"|"resume"|"scale","worker","seq","concurrency"?}`: see scripts/tell-workers.lua) | ours |
 * | `queue:{NAME}:stats` | hash: counters kept by the scripts (the recipe's Ruby port uses it too) | Ruby |
 * | `queue:{NAME}:leases` | sorted set: claimed id, scored by lease deadline (ms) | ours |
 * | `queue:{NAME}:delayed` | sorted set: id waiting for its time, scored by due time (ms) | ours |
 * | `queue:{NAME}:idem:<key>` | string: id of the job holding an idempotency key | ours |
 * | `queue:{NAME}:dedupe:<kind>:<key>` | string: id of the job that owns dedupe (or unique) key `key` of kind `kind`; released by the script that ends it (scripts/lib/dedupe.lua) | ours |
 * | `queue:{NAME}:batch:<id>` | hash: batch `id`: its counts (total, succeeded, failed, cancelled), whether it is sealed, its callbacks and which fired (scripts/lib/batch.lua); kept a week once finished | ours |
 * | `queue:{NAME}:batches` | sorted set: every batch id, scored by when its hash expires (ms; +inf until it finishes) | ours |
 * | `queue:{NAME}:deduped:<id>` | string: the job an enqueue of job `id` was absorbed into, for a resend; expiring | ours |
 * | `queue:{NAME}:waiting-children` | sorted set: flow parents waiting for their children, in enqueue order (scored by enqueue time, ms, nudged past ties) | ours |
 * | `queue:{NAME}:removals` | sorted set: recent removals (`<request id> <job id>`, scored by when, ms), so a resent remove answers as the first did; bounded, expiring | ours |
 * | `queue:{NAME}:log` | stream: the durable event log, one entry per state change, capped (when the queue's `eventLog` is on) | ours |
 * | `queue:{NAME}:reclaim-cursor` | string: where the sweep for foreign claims is | ours |
 * | `queue:{NAME}:partitions` | string: the partition count of a partitioned queue `NAME`, whose partitions are the queues `NAME:p0`... | ours |
 * | `queue:{NAME}:schedules` | sorted set: every schedule's id (score 0, so in id order) | ours |
 * | `queue:{NAME}:schedules-due` | sorted set: each active schedule's id, scored by its next run (ms) | ours |
 * | `queue:{NAME}:schedule:<id>` | hash: schedule `id`: its kind, payload, timing and next run | ours |
 * | `queue:{NAME}:schedules-wake` | pub/sub channel: a schedule was created, changed or resumed | ours |
 * | `queue:{NAME}:flow` | hash: admission in use (what decides whether and when a waiting job may start): `paused`, `paused_kind:<kind>`, `priorities`, `parking:<kind>` (a kind whose parked list may hold jobs), limits (absent when none is) | ours |
 * | `queue:{NAME}:priorities` | sorted set: the priority levels (other than 0) whose list may hold jobs | ours |
 * | `queue:{NAME}:priority:<p>` | list: waiting jobs of priority `p` (priority 0 is `pending`) | ours |
 * | `queue:{NAME}:parked:<kind>` | list: jobs of a paused or limited kind, set aside by the claims that met them | ours |
 * | `queue:{NAME}:resume` | list: a token pushed on resume (or when the queue's full cap frees a slot, or on setLimits), waking the claims of workers waiting on it: a paused queue's, or one over its own rate limit or cap | ours |
 * | `queue:{NAME}:rate`, `:rate:kind:<k>`, `:rate:group:<g>` | sorted set: start times (ms) in a rate limit's sliding window, member: claim token (a job of cost n: n members) | ours |
 * | `queue:{NAME}:spread`, `:spread:kind:<k>`, `:spread:group:<g>` | string: a spread rate limit's theoretical arrival time (µs, Redis clock), expiring when it has passed | ours |
 * | `queue:{NAME}:running`, `:running:kind:<k>`, `:running:group:<g>` | sorted set: ids holding a slot of the queue's, a kind's, a group's concurrency cap, scored by lease deadline | ours |
 * | `queue:{NAME}:groups` | sorted set: groups with jobs waiting, scored by when their next turn may be taken | ours |
 * | `queue:{NAME}:group:<g>` | list: waiting jobs of group `g` (behind its carrier in pending) | ours |
 * | `queue:{NAME}:workers` | sorted set: the worker registry, worker id scored by the time (ms, Redis clock) until which it counts as alive (a member below now is dead); capped, expires with its last member | ours |
 * | `queue:{NAME}:audit` | stream: the audit trail, one entry per dashboard or `jobsctl` action (who, what, how many jobs), capped; a purge keeps it | ours |
 * | `queue:{NAME}:worker:<id>` | hash: worker `id`'s last heartbeat (host, pid, version, kinds, concurrency, running jobs, started, last seen), expiring at the same time | ours |
 * | `queue:{NAME}:metrics:<kind>` | string of fixed size: kind `kind`'s metrics history, a ring of minutes and a ring of hours (scripts/lib/metrics.lua), expiring 14 days after its last write | ours |
 * | `queue:{NAME}:metrics-kinds` | sorted set: the kinds with a metrics history, scored by their last write (ms, Redis clock); capped | ours |
 *
 * The scripts that use admission get `prefix` in ARGV and append to it the suffixes of
 * {@link ADMISSION_KEY_SUFFIXES} (scripts/lib/admission.lua names them as this module does): appending a
 * suffix to a prefix from this module, as job keys append an id to `jobPrefix`, is the only way
 * a script makes a key name. The worker registry's keys are built likewise, from
 * {@link WORKER_KEY_SUFFIXES} (scripts/lib/live-workers.lua), and the metrics history's from
 * {@link METRICS_KEY_SUFFIXES} (scripts/lib/metrics.lua). A partitioned queue keeps its
 * registry in partition 0's keys, as it does its schedules.
 */
export interface QueueKeys {
  /** The queue's name, as given. */
  readonly name: string;
  /** `queue:{NAME}:`, the prefix of every key of this queue. */
  readonly prefix: string;
  readonly pending: string;
  readonly processing: string;
  readonly completed: string;
  readonly failed: string;
  readonly delayed: string;
  readonly leases: string;
  readonly stats: string;
  readonly reclaimCursor: string;
  /** The event log stream (written only when the queue's `eventLog` is on). */
  readonly log: string;
  /** The flow parents waiting for their children (scripts/lib/flow-children.lua appends `waiting-children` to the prefix). */
  readonly waitingChildren: string;
  /** Recent removals by request, for a resent `Queue.remove` (see scripts/remove.lua). */
  readonly removals: string;
  /** The partition count of a partitioned queue of this name (its partitions are other queues). */
  readonly partitions: string;
  /**
   * The admission hash (`queue:{NAME}:flow`): pause state, whether other priorities are in use,
   * limits and groups.
   */
  readonly admission: string;
  /** @deprecated Use {@link QueueKeys.admission} (the same key). */
  readonly flow: string;
  /** The sorted set of priority levels (other than 0) whose list may hold jobs. */
  readonly priorities: string;
  /** The list a paused queue's workers block on; resuming pushes a token onto it. */
  readonly resume: string;
  /** The pub/sub channel (not a key) of the queue's events. */
  readonly events: string;
  /**
   * The pub/sub channel (not a key) on which the scripts that delay a job say how many ms until
   * it is due, when no other delayed job is due before it: workers waiting for work hear it.
   */
  readonly wake: string;
  /**
   * The pub/sub channel (not a key) on which the queue's workers hear orders (see
   * `ControlOrder`): a running job was cancelled, a worker is to go quiet, resume or scale. A
   * lost message is made up for by the next lease renewal's reply, or the next heartbeat's.
   */
  readonly control: string;
  /** `queue:{NAME}:job:`, to which a job id is appended. */
  readonly jobPrefix: string;
  /** The hash of job `id`. */
  job(id: string): string;
  /** The list of job `id`'s ended attempts (see {@link JOB_TRAIL_SUFFIXES}). */
  jobAttempts(id: string): string;
  /** The list of job `id`'s log lines (see {@link JOB_TRAIL_SUFFIXES}). */
  jobLogs(id: string): string;
  /** The key that holds idempotency key `key`. */
  idempotency(key: string): string;
  /** The hash of batch `id` (see {@link BATCH_KEY_SUFFIXES}). */
  batch(id: string): string;
  /** Every batch id, scored by when its hash expires. */
  readonly batches: string;
  /** The key that holds dedupe (or unique) key `key` of kind `kind` (see {@link DEDUPE_KEY_SUFFIXES}). */
  dedupe(kind: string, key: string): string;
  /** Every schedule's id, in a sorted set scored 0 (so listed in id order). */
  readonly schedules: string;
  /** The active schedules' ids, scored by their next run (ms, Redis clock). */
  readonly schedulesDue: string;
  /** `queue:{NAME}:schedule:`, to which a schedule id is appended. */
  readonly schedulePrefix: string;
  /** The hash of schedule `id`. */
  schedule(id: string): string;
  /** The pub/sub channel (not a key) on which a schedule just created, changed or resumed is announced. */
  readonly schedulesWake: string;
  /** The list of waiting jobs of priority `level` (not 0: those wait in `pending`). */
  priorityList(level: number): string;
  /** The list of the parked jobs of paused (or limited) kind `kind`. */
  parked(kind: string): string;
  /** The sliding window of the queue's own rate limit. */
  readonly rate: string;
  /** The sliding window of kind `kind`'s rate limit. */
  kindRate(kind: string): string;
  /** The sliding window of group `group`'s rate limit. */
  groupRate(group: string): string;
  /** The running slots of kind `kind`'s concurrency cap. */
  kindRunning(kind: string): string;
  /** The running slots of the queue's own concurrency cap. */
  readonly queueRunning: string;
  /** The arrival time of the queue's spread rate limit. */
  readonly spread: string;
  /** The arrival time of kind `kind`'s spread rate limit. */
  kindSpread(kind: string): string;
  /** The arrival time of group `group`'s spread rate limit. */
  groupSpread(group: string): string;
  /** The running slots of group `group`'s concurrency cap. */
  groupRunning(group: string): string;
  /** The groups with jobs waiting, scored by when their next turn may be taken. */
  readonly groups: string;
  /** The waiting jobs of group `group`. */
  group(group: string): string;
  /** The worker registry: worker id scored by the time (ms, Redis clock) until which it counts as alive. */
  readonly workers: string;
  /** The audit trail: a capped stream of who did what to the queue (a partitioned queue keeps it in partition 0). */
  readonly audit: string;
  /** `queue:{NAME}:worker:`, to which a worker id is appended. */
  readonly workerPrefix: string;
  /** The hash of worker `id`'s last heartbeat. */
  worker(id: string): string;
  /** The kinds with a metrics history, scored by their last write (ms, Redis clock). */
  readonly metricsKinds: string;
  /** Kind `kind`'s metrics history: a string of fixed size (see scripts/lib/metrics.lua). */
  metrics(kind: string): string;
}

/**
 * The suffixes of the admission keys, appended to the queue's `prefix` here and in
 * scripts/lib/admission.lua (which receives `prefix` in ARGV): the admission hash, the levels set, a
 * level's list (`priority:<p>`), a paused or limited kind's parked list (`parked:<kind>`), the
 * resume list, and for limits and groups (scripts/lib/limits.lua): the rate windows and spread
 * arrival times of the queue, a kind and a group, the running sets of the queue's, a kind's and
 * a group's concurrency cap, the groups waiting for a turn and a group's list.
 */
export const ADMISSION_KEY_SUFFIXES = Object.freeze({
  admission: 'flow',
  priorities: 'priorities',
  priority: 'priority:',
  parked: 'parked:',
  resume: 'resume',
  rate: 'rate',
  kindRate: 'rate:kind:',
  groupRate: 'rate:group:',
  kindRunning: 'running:kind:',
  groupRunning: 'running:group:',
  queueRunning: 'running',
  spread: 'spread',
  kindSpread: 'spread:kind:',
  groupSpread: 'spread:group:',
  groups: 'groups',
  group: 'group:',
});

/**
 * The suffixes of the worker registry's keys, appended to the queue's `prefix` here and in
 * scripts/lib/live-workers.lua: the sorted set of workers and a worker's hash (`worker:<id>`).
 */
export const WORKER_KEY_SUFFIXES = Object.freeze({
  workers: 'workers',
  worker: 'worker:',
});

/**
 * The suffixes of a job's trail, appended to its hash's key here and in scripts/lib/job-trail.lua:
 * its ended attempts and its log lines. `#` is no character of a job id ({@link JOB_ID_PATTERN}),
 * so no job's hash can be named like another job's trail.
 */
export const JOB_TRAIL_SUFFIXES = Object.freeze({
  attempts: '#attempts',
  logs: '#logs',
});

/**
 * The suffixes of the dedupe keys, appended to the queue's `prefix` here and in
 * scripts/lib/dedupe.lua: a key's owner (`dedupe:<kind>:<key>`: kind names hold no `:`) and an
 * absorbed enqueue's marker (`deduped:<id>`), which scripts/enqueue.lua reads for a resend.
 */
export const DEDUPE_KEY_SUFFIXES = Object.freeze({
  dedupe: 'dedupe:',
  deduped: 'deduped:',
});

/**
 * The suffixes of the batches' keys, appended to the queue's `prefix` here and in
 * scripts/lib/batch.lua: a batch's hash (`batch:<id>`) and the index of batches.
 */
export const BATCH_KEY_SUFFIXES = Object.freeze({
  batch: 'batch:',
  batches: 'batches',
});

/**
 * The suffixes of the metrics history's keys, appended to the queue's `prefix` here and in
 * scripts/lib/metrics.lua: the sorted set of kinds with history and a kind's string (`metrics:<kind>`).
 */
export const METRICS_KEY_SUFFIXES = Object.freeze({
  metricsKinds: 'metrics-kinds',
  metrics: 'metrics:',
});

/** Queue names: letters, digits and `. _ - :`, starting with a letter or digit, at most 128. */
export const QUEUE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** Job ids: what this package makes (16 hex digits) and what recipe ports make, at most 128. */
export const JOB_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/**
 * Throws {@link InvalidArgumentError} unless `name` is a queue name that cannot break the key
 * schema: no braces (they would move the hash tag), no glob characters (they would widen a
 * SCAN pattern to other queues: the recipe's B28), no whitespace or control characters.
 */
export function assertQueueName(name: unknown, field = 'queue'): asserts name is string {
  if (typeof name !== 'string') throw new InvalidArgumentError(field, `expected a string, got ${typeof name}`);
  if (!QUEUE_NAME_PATTERN.test(name)) {
    throw new InvalidArgumentError(
      field,
      `${JSON.stringify(name)} is not a valid queue name: use 1 to 128 letters, digits, '.', '_', '-' or ':', starting with a letter or digit (no braces, glob characters or spaces)`,
    );
  }
}

/** Throws {@link InvalidArgumentError} unless `id` looks like a job id. */
export function assertJobId(id: unknown, field = 'id'): asserts id is string {
  if (typeof id !== 'string' || !JOB_ID_PATTERN.test(id)) {
    throw new InvalidArgumentError(field, `${JSON.stringify(id)} is not a job id (1 to 128 letters, digits, '.', '_', '-' or ':')`);
  }
}

/**
 * Throws {@link InvalidArgumentError} (field `workerId`) unless `id` is a worker id: up to 128
 * printable characters without spaces; `''` (no id) only when `allowEmpty`.
 */
export function assertWorkerId(id: unknown, allowEmpty = false): asserts id is string {
  if (typeof id !== 'string' || (id === '' && !allowEmpty) || id.length > 128 || /[^\x21-\x7e]/.test(id)) {
    throw new InvalidArgumentError('workerId', `expected ${allowEmpty ? 'up to' : '1 to'} 128 printable characters without spaces`);
  }
}

/** Every key of queue `name`. Validates the name first. */
export function queueKeys(name: string): QueueKeys {
  assertQueueName(name);
  const prefix = `queue:{${name}}:`;
  const jobPrefix = `${prefix}job:`;
  return Object.freeze({
    name,
    prefix,
    pending: `${prefix}pending`,
    processing: `${prefix}processing`,
    completed: `${prefix}completed`,
    failed: `${prefix}failed`,
    delayed: `${prefix}delayed`,
    leases: `${prefix}leases`,
    stats: `${prefix}stats`,
    reclaimCursor: `${prefix}reclaim-cursor`,
    log: `${prefix}log`,
    removals: `${prefix}removals`,
    waitingChildren: `${prefix}waiting-children`,
    partitions: `${prefix}partitions`,
    admission: `${prefix}${ADMISSION_KEY_SUFFIXES.admission}`,
    flow: `${prefix}${ADMISSION_KEY_SUFFIXES.admission}`,
    priorities: `${prefix}${ADMISSION_KEY_SUFFIXES.priorities}`,
    resume: `${prefix}${ADMISSION_KEY_SUFFIXES.resume}`,
    events: `${prefix}events`,
    wake: `${prefix}wake`,
    control: `${prefix}control`,
    jobPrefix,
    job: (id: string) => `${jobPrefix}${id}`,
    jobAttempts: (id: string) => `${jobPrefix}${id}${JOB_TRAIL_SUFFIXES.attempts}`,
    jobLogs: (id: string) => `${jobPrefix}${id}${JOB_TRAIL_SUFFIXES.logs}`,
    idempotency: (key: string) => `${prefix}idem:${key}`,
    batch: (id: string) => `${prefix}${BATCH_KEY_SUFFIXES.batch}${id}`,
    batches: `${prefix}${BATCH_KEY_SUFFIXES.batches}`,
    dedupe: (kind: string, key: string) => `${prefix}${DEDUPE_KEY_SUFFIXES.dedupe}${kind}:${key}`,
    schedules: `${prefix}schedules`,
    schedulesDue: `${prefix}schedules-due`,
    schedulePrefix: `${prefix}schedule:`,
    schedule: (id: string) => `${prefix}schedule:${id}`,
    schedulesWake: `${prefix}schedules-wake`,
    priorityList: (level: number) => `${prefix}${ADMISSION_KEY_SUFFIXES.priority}${level}`,
    parked: (kind: string) => `${prefix}${ADMISSION_KEY_SUFFIXES.parked}${kind}`,
    rate: `${prefix}${ADMISSION_KEY_SUFFIXES.rate}`,
    kindRate: (kind: string) => `${prefix}${ADMISSION_KEY_SUFFIXES.kindRate}${kind}`,
    groupRate: (group: string) => `${prefix}${ADMISSION_KEY_SUFFIXES.groupRate}${group}`,
    kindRunning: (kind: string) => `${prefix}${ADMISSION_KEY_SUFFIXES.kindRunning}${kind}`,
    groupRunning: (group: string) => `${prefix}${ADMISSION_KEY_SUFFIXES.groupRunning}${group}`,
    queueRunning: `${prefix}${ADMISSION_KEY_SUFFIXES.queueRunning}`,
    spread: `${prefix}${ADMISSION_KEY_SUFFIXES.spread}`,
    kindSpread: (kind: string) => `${prefix}${ADMISSION_KEY_SUFFIXES.kindSpread}${kind}`,
    groupSpread: (group: string) => `${prefix}${ADMISSION_KEY_SUFFIXES.groupSpread}${group}`,
    groups: `${prefix}${ADMISSION_KEY_SUFFIXES.groups}`,
    group: (group: string) => `${prefix}${ADMISSION_KEY_SUFFIXES.group}${group}`,
    workers: `${prefix}${WORKER_KEY_SUFFIXES.workers}`,
    audit: `${prefix}audit`,
    workerPrefix: `${prefix}${WORKER_KEY_SUFFIXES.worker}`,
    worker: (id: string) => `${prefix}${WORKER_KEY_SUFFIXES.worker}${id}`,
    metricsKinds: `${prefix}${METRICS_KEY_SUFFIXES.metricsKinds}`,
    metrics: (kind: string) => `${prefix}${METRICS_KEY_SUFFIXES.metrics}${kind}`,
  });
}
