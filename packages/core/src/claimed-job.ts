import { CLAIM_STRIDE, CLAIM_TRACED_STRIDE } from './generated/constants.ts';
import type { ClaimedJob } from './job-record.ts';

function toNumber(value: unknown): number | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

function optional(value: unknown): string | undefined {
  return value === null || value === undefined ? undefined : String(value);
}

function parsePayload(raw: string | undefined): unknown {
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/**
 * A job as the claim script hands it over: the values a worker needs, read straight from the
 * reply (no second read of the hash). `fields` holds the hash fields the claim read, as they
 * are after its stamp; `visibilityMs` is the lease length this claim was given. `traced`: the
 * reply carries the traceparent too.
 */
function readClaimedJob(reply: readonly unknown[], at: number, nowMs: number, traced: boolean): ClaimedJob {
  const id = String(reply[at]);
  const token = String(reply[at + 1]);
  const attempts = toNumber(reply[at + 2]) ?? 1;
  const maxAttempts = toNumber(reply[at + 3]);
  const leaseExpiresAtMs = Number(reply[at + 4]);
  const rawPayload = optional(reply[at + 5]);
  const kindField = optional(reply[at + 6]);
  const enqueuedAt = toNumber(reply[at + 7]);
  const lastError = optional(reply[at + 8]) || undefined;
  const priority = toNumber(reply[at + 9]);
  const traceparent = traced ? optional(reply[at + 10]) || undefined : undefined;
  const payload = parsePayload(rawPayload);
  const payloadKind = typeof payload === 'object' && payload !== null ? (payload as { kind?: unknown }).kind : undefined;
  const fields: Record<string, string> = {
    id,
    status: 'processing',
    claim_token: token,
    claimed_at_ms: String(nowMs),
    lease_expires_at_ms: String(leaseExpiresAtMs),
    attempts: String(attempts),
  };
  if (maxAttempts !== undefined) fields.max_attempts = String(maxAttempts);
  if (rawPayload !== undefined) fields.payload = rawPayload;
  if (kindField !== undefined) fields.kind = kindField;
  if (enqueuedAt !== undefined) fields.enqueued_at_ms = String(enqueuedAt);
  if (lastError !== undefined) fields.last_error = lastError;
  if (priority !== undefined) fields.priority = String(priority);
  if (traceparent !== undefined) fields.traceparent = traceparent;
  return {
    id,
    token,
    status: 'processing',
    kind: typeof payloadKind === 'string' ? payloadKind : kindField,
    payload,
    rawPayload,
    attempts,
    maxAttempts,
    visibilityMs: leaseExpiresAtMs - nowMs,
    enqueuedAtMs: enqueuedAt !== undefined && enqueuedAt > 0 ? enqueuedAt : undefined,
    claimedAtMs: nowMs,
    leaseRenewedAtMs: undefined,
    leaseExpiresAtMs,
    runAtMs: undefined,
    completedAtMs: undefined,
    failedAtMs: undefined,
    cancelledAtMs: undefined,
    reclaimedAtMs: undefined,
    result: undefined,
    lastError,
    lastErrorAtMs: undefined,
    // The claim reads only the message (last_error); getJob reads the whole form.
    error: lastError !== undefined ? { message: lastError } : undefined,
    priority: priority ?? 0,
    // Not in the claim reply (an expired job is never claimed); progress starts afresh.
    expiresAtMs: undefined,
    progress: undefined,
    // Not in the claim reply either, so a claim costs the same with or without: ctx.checkpointed() reads it.
    checkpoint: undefined,
    traceparent,
    fields: Object.freeze(fields),
  };
}

/**
 * Reads the claimed jobs of a claim reply: groups of `CLAIM_STRIDE` values (`CLAIM_TRACED_STRIDE`
 * for a claim sent with `traced` '1'; scripts/lib/claim-jobs.lua) from `at` to its end.
 */
export function readClaimedJobs(reply: readonly unknown[], at: number, nowMs: number, traced: '0' | '1' = '0'): ClaimedJob[] {
  const jobs: ClaimedJob[] = [];
  const withTrace = traced === '1';
  const stride = withTrace ? CLAIM_TRACED_STRIDE : CLAIM_STRIDE;
  for (let i = at; i + stride <= reply.length; i += stride) jobs.push(readClaimedJob(reply, i, nowMs, withTrace));
  return jobs;
}
