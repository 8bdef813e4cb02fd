import { storedError, type ErrorShape } from './error-shape.ts';

/**
 * A job as stored in its hash, read into types. The hash keeps the recipe's fields (`id`,
 * `payload`, `status`, `attempts`, `enqueued_at_ms`, `claimed_at_ms`, `claim_token`,
 * `completed_at_ms`, `result`, `last_error`, `last_error_at_ms`, `reclaimed_at_ms`) and adds
 * ours (`kind`, `max_attempts`, `visibility_ms`, `run_at_ms`, `lease_expires_at_ms`,
 * `first_claimed_at_ms`, `failed_at_ms`, `cancelled_at_ms`, `priority`, `expires_at_ms`,
 * `progress`, `progress_at_ms`, `traceparent`, `last_error_json`, `trail`, `attempts_trimmed`,
 * `logs_trimmed`, `checkpoint`, `checkpoint_at_ms`, `snoozed_at_ms`), which recipe clients ignore.
 * A lease renewal moves `claimed_at_ms` to its own time (a recipe reclaimer reads it) and keeps
 * the attempt's claim time in `first_claimed_at_ms`.
 */

/**
 * The states a job goes through. The recipe has the first four; the rest are ours. A flow's parent
 * is `waiting-children` (in no list) until its children have settled.
 */
export const JOB_STATUSES = ['pending', 'processing', 'completed', 'failed', 'delayed', 'cancelled', 'waiting-children'] as const;

/** A job's status. */
export type JobStatus = (typeof JOB_STATUSES)[number];

/** A job read from Redis. Times are Unix milliseconds on the Redis server's clock. */
export interface JobRecord {
  readonly id: string;
  /** Its status; a hash written by a foreign client may hold a value outside {@link JobStatus}. */
  readonly status: JobStatus | (string & {});
  /** The kind: the payload's `kind` field, else the hash's `kind` field. */
  readonly kind: string | undefined;
  /** The parsed payload (with its `kind` field), or undefined when it is not JSON. */
  readonly payload: unknown;
  /** The payload as stored. */
  readonly rawPayload: string | undefined;
  /** Claims so far (the recipe counts claims, not failures). */
  readonly attempts: number;
  readonly maxAttempts: number | undefined;
  readonly visibilityMs: number | undefined;
  readonly enqueuedAtMs: number | undefined;
  /** When the current (or last) attempt was claimed, however often its lease was renewed since. */
  readonly claimedAtMs: number | undefined;
  /** When its lease was last renewed, if it was (the hash's `claimed_at_ms` then). */
  readonly leaseRenewedAtMs: number | undefined;
  /** While it runs: when its lease expires (undefined in every other state). */
  readonly leaseExpiresAtMs: number | undefined;
  readonly runAtMs: number | undefined;
  readonly completedAtMs: number | undefined;
  readonly failedAtMs: number | undefined;
  readonly cancelledAtMs: number | undefined;
  readonly reclaimedAtMs: number | undefined;
  /** The parsed result (or the raw string when it is not JSON). */
  readonly result: unknown;
  readonly lastError: string | undefined;
  readonly lastErrorAtMs: number | undefined;
  /**
   * The last error in the one error form (code, message, stack, cause): the stored form when it
   * goes with `last_error`, else `{ message: last_error }` (a recipe client's bare text).
   */
  readonly error: ErrorShape | undefined;
  /** Its priority (higher is claimed first); 0, the default, when the hash has none. */
  readonly priority: number;
  /** When it expires if not started by then, if it can. */
  readonly expiresAtMs: number | undefined;
  /** The last progress its handler reported (`ctx.progress`), parsed; undefined when none. */
  readonly progress: unknown;
  /** The last checkpoint its handler stored (`ctx.checkpoint`), parsed; undefined when none (and on a claimed job: see `ctx.checkpointed`). */
  readonly checkpoint: unknown;
  /**
   * The W3C `traceparent` of the enqueue that made it, when tracing was on there. A claim
   * returns it only to a worker that traces (`claimTraceparent`); `getJob` always.
   */
  readonly traceparent: string | undefined;
  /** Every field as stored. */
  readonly fields: Readonly<Record<string, string>>;
}

/** A job this process has claimed: its record plus the token that proves the claim. */
export interface ClaimedJob extends JobRecord {
  /** Proof of this claim; every complete, fail and lease renewal must present it. */
  readonly token: string;
  readonly claimedAtMs: number;
  readonly leaseExpiresAtMs: number;
}

function toNumber(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/** A positive time; the recipe writes `0` for "not claimed", which reads as undefined. */
function toTime(value: string | undefined): number | undefined {
  const n = toNumber(value);
  return n !== undefined && n > 0 ? n : undefined;
}

function parseJson(value: string | undefined): { ok: boolean; value: unknown } {
  if (value === undefined) return { ok: false, value: undefined };
  try {
    return { ok: true, value: JSON.parse(value) };
  } catch {
    return { ok: false, value };
  }
}

/** Turns a flat `[field, value, ...]` array (HGETALL in a script) into an object. */
export function pairsToObject(pairs: readonly string[], start = 0): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = start; i + 1 < pairs.length; i += 2) fields[pairs[i] as string] = pairs[i + 1] as string;
  return fields;
}

/**
 * The attempt's claim time and its last renewal. `first_claimed_at_ms` counts only beside a live
 * `claimed_at_ms`, and not when recipe clients left it behind from an earlier attempt (they know
 * neither it nor `first_claim_token`): while a claim is in force, when `first_claim_token` names
 * it (the rule of scripts/extend.lua); once the job finished, when not older than a reclaim.
 */
function claimTimes(fields: Record<string, string>): { claimedAtMs: number | undefined; leaseRenewedAtMs: number | undefined } {
  const claimed = toTime(fields.claimed_at_ms);
  const first = toTime(fields.first_claimed_at_ms);
  const stale = first !== undefined && (fields.claim_token ? fields.first_claim_token !== fields.claim_token : first < (toTime(fields.reclaimed_at_ms) ?? 0));
  if (claimed === undefined || first === undefined || stale) return { claimedAtMs: claimed, leaseRenewedAtMs: undefined };
  return { claimedAtMs: first, leaseRenewedAtMs: claimed };
}

/** Reads a job hash into a {@link JobRecord}. */
export function parseJobRecord(id: string, fields: Record<string, string>): JobRecord {
  const payload = parseJson(fields.payload);
  const payloadKind = payload.ok && typeof payload.value === 'object' && payload.value !== null ? (payload.value as { kind?: unknown }).kind : undefined;
  return {
    id: fields.id || id,
    status: fields.status ?? 'pending',
    kind: typeof payloadKind === 'string' ? payloadKind : fields.kind,
    payload: payload.ok ? payload.value : undefined,
    rawPayload: fields.payload,
    attempts: toNumber(fields.attempts) ?? 0,
    maxAttempts: toNumber(fields.max_attempts),
    visibilityMs: toNumber(fields.visibility_ms),
    enqueuedAtMs: toTime(fields.enqueued_at_ms),
    ...claimTimes(fields),
    // A finished job's hash may keep its last lease's deadline: a lease only while it runs.
    leaseExpiresAtMs: fields.status === 'processing' ? toTime(fields.lease_expires_at_ms) : undefined,
    runAtMs: toTime(fields.run_at_ms),
    completedAtMs: toTime(fields.completed_at_ms),
    failedAtMs: toTime(fields.failed_at_ms),
    cancelledAtMs: toTime(fields.cancelled_at_ms),
    reclaimedAtMs: toTime(fields.reclaimed_at_ms),
    result: parseJson(fields.result).value,
    lastError: fields.last_error || undefined,
    lastErrorAtMs: toTime(fields.last_error_at_ms),
    error: storedError(fields.last_error, fields.last_error_json),
    priority: toNumber(fields.priority) ?? 0,
    expiresAtMs: toTime(fields.expires_at_ms),
    progress: parseJson(fields.progress).value,
    checkpoint: parseJson(fields.checkpoint).value,
    traceparent: fields.traceparent || undefined,
    fields: Object.freeze(fields),
  };
}
