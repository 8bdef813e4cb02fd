// The shapes of the dashboard's JSON API (see the package README), as the page reads them.

/** `GET /api/session`. */
export interface Session {
  readonly role: 'operator' | 'viewer';
  readonly label?: string;
  readonly csrfToken: string;
  readonly loginRequired: boolean;
  readonly capabilities: Capabilities;
  /** The states the jobs list takes; absent from an older server. */
  readonly listStates?: readonly string[];
  readonly pollIntervalMs: number;
  readonly scanLimit: number;
  readonly maxPageSize: number;
  readonly redriveLimit: number;
}

/** What the data source can do: each view or control shows only when its flag is true. */
export interface Capabilities {
  readonly attempts?: boolean;
  readonly audit?: boolean;
  readonly batches?: boolean;
  readonly changePriority?: boolean;
  readonly children?: boolean;
  readonly flowState?: boolean;
  readonly history?: boolean;
  readonly logs?: boolean;
  readonly pause?: boolean;
  readonly promote?: boolean;
  readonly remove?: boolean;
  /** Quiet and resume the queue's workers. */
  readonly workerOrders?: boolean;
  readonly schedules?: boolean;
  readonly timeline?: boolean;
  readonly workers?: boolean;
}

export interface RatePoint {
  readonly atMs: number;
  readonly enqueuedPerSecond: number;
  readonly completedPerSecond: number;
  readonly failedPerSecond: number;
}

/** A queue's stats as the overview sends them (core's `QueueStats`, loosely). */
export interface Stats {
  readonly [depth: string]: unknown;
  readonly pendingDepth: number;
  readonly processingDepth: number;
  readonly delayedDepth: number;
  readonly completedDepth: number;
  readonly failedDepth: number;
  readonly prioritizedDepth?: number;
  readonly parkedDepth?: number;
  readonly groupedDepth?: number | null;
  readonly groupsWaiting?: number;
  readonly waitingDepth?: number | null;
  readonly oldestPendingAgeMs: number | null;
  readonly nowMs: number;
}

export interface Admission {
  readonly paused: boolean;
  readonly pausedKinds?: readonly string[];
  readonly kinds?: readonly string[];
  readonly limits?: Readonly<Record<string, number | string | null>>;
}

export interface QueueOverview {
  readonly name: string;
  readonly stats: Stats;
  readonly flow?: Admission;
  readonly liveWorkers?: number;
  readonly rates: readonly RatePoint[];
}

export interface Overview {
  readonly queues: readonly QueueOverview[];
}

export interface JobSummary {
  readonly id: string;
  readonly status: string;
  readonly kind?: string;
  readonly attempts: number | null;
  readonly maxAttempts: number | null;
  readonly enqueuedAtMs: number | null;
  readonly atMs?: number | null;
  readonly lastError?: string;
  readonly errorCode?: string;
  readonly payloadPreview: string;
}

export interface JobPage {
  readonly queue: string;
  readonly state: string;
  readonly scanLimit: number;
  readonly jobs: readonly JobSummary[];
  readonly offset: number;
  readonly scanned: number;
  readonly nextOffset: number | null;
  readonly depth: number | null;
  readonly filtered: boolean;
}

/** The one error format. */
export interface ErrorShape {
  readonly code?: string;
  readonly message: string;
  readonly stack?: string;
  readonly cause?: ErrorShape;
}

export interface JobDetail {
  readonly id: string;
  readonly status: string;
  readonly kind?: string;
  readonly attempts: number | null;
  readonly maxAttempts: number | null;
  readonly payload?: unknown;
  readonly result?: unknown;
  readonly lastError?: string;
  readonly error?: ErrorShape;
  readonly progress?: unknown;
  readonly timing: Readonly<Record<string, number | null>>;
  readonly fields: Readonly<Record<string, string>>;
}

export interface AttemptEntry {
  readonly attempt: number;
  readonly workerId?: string;
  readonly claimedAtMs: number | null;
  readonly endedAtMs: number | null;
  readonly durationMs: number | null;
  readonly outcome: string;
  readonly error?: ErrorShape;
}

export interface LogLine {
  readonly atMs: number;
  readonly attempt?: number;
  readonly line: string;
}

export interface JobAnswer {
  readonly queue: string;
  readonly job: JobDetail;
  readonly timeline?: readonly { atMs: number | null; event: string; detail?: string }[];
  readonly timelineError?: string;
  readonly why?: { atMs: number | null; status: string; reasons: readonly { code: string; text: string }[] };
  readonly whyError?: string;
  readonly attempts?: { entries: readonly AttemptEntry[]; trimmed: number };
  readonly logs?: { lines: readonly LogLine[]; trimmed: number };
}

export interface ChildInfo {
  readonly id: string;
  readonly kind: string;
  readonly status: string;
  readonly error?: string;
}

export interface Schedule {
  readonly name: string;
  readonly kind?: string;
  readonly every: string;
  readonly nextRunAtMs: number | null;
  readonly status?: string;
}

export interface WorkerRow {
  readonly id: string;
  readonly host: string;
  readonly pid: number | null;
  readonly version: string;
  readonly kinds: readonly string[];
  readonly concurrency: number | null;
  /** It claims no new jobs (told so by `quietWorkers`, `jobsctl quiet` or its own `quiet()`). */
  readonly quiet: boolean;
  readonly running: readonly string[];
  readonly runningCount: number | null;
  readonly startedAtMs: number | null;
  readonly lastSeenMs: number | null;
  readonly aliveUntilMs: number | null;
}

/** `GET /api/queues/:q/batches`'s rows (see the route's `shownBatch`). */
export interface BatchRow {
  readonly id: string;
  readonly state: 'open' | 'sealed' | 'finished';
  readonly total: number | null;
  readonly succeeded: number | null;
  readonly failed: number | null;
  readonly cancelled: number | null;
  readonly pending: number | null;
  readonly createdAtMs: number | null;
  readonly sealedAtMs: number | null;
  readonly finishedAtMs: number | null;
  /** Each callback it has (`success`, `complete`, `death`), with its job's id once fired. */
  readonly callbacks: readonly { readonly name: string; readonly jobId: string | null }[];
}

export interface History {
  readonly queue: string;
  readonly range: string;
  readonly kind: string | null;
  readonly kinds: readonly string[];
  readonly stepMs: number;
  readonly atMs: readonly number[];
  readonly enqueued: readonly number[];
  readonly completed: readonly number[];
  readonly failed: readonly number[];
  readonly retried: readonly number[];
  readonly runMsP50: readonly (number | null)[];
  readonly runMsP95: readonly (number | null)[];
  readonly runMsP99: readonly (number | null)[];
}

/** `GET /api/queues/:q/audit`'s entries (see the route's `shownEntry`). */
export interface AuditEntry {
  readonly id: string;
  readonly atMs: number | null;
  readonly who: { role?: string; label?: string };
  readonly action: string;
  /** The queue as the action named it, when not the trail's own (a partition). */
  readonly queue?: string;
  /** A clipped target's filter is its JSON text, cut. */
  readonly target: { id?: string; kind?: string; filter?: Readonly<Record<string, unknown>> | string; ids?: readonly string[]; clipped?: boolean };
  readonly count: number | null;
  /** The error code of an action that was refused or failed (count 0). */
  readonly error?: string;
}

export interface BulkAnswer {
  readonly action: string;
  readonly matched: number;
  readonly done: number;
  readonly skipped: readonly { id: string; status: string }[];
  readonly more: boolean;
}
