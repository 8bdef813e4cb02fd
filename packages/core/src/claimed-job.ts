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

/** A reply value as a number; the script sends Lua numbers as integers, hash fields as text. */
function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  return toNumber(value);
}

/**
 * A job as the claim script hands it over: the values a worker needs, read straight from the
 * reply (no second read of the hash). `fields`, the hash fields the claim read as they are
 * after its stamp, is built on first read: a worker's hot path never asks for it.
 */
class ReplyJob implements ClaimedJob {
  readonly status = 'processing';
  readonly leaseRenewedAtMs = undefined;
  readonly runAtMs = undefined;
  readonly completedAtMs = undefined;
  readonly failedAtMs = undefined;
  readonly cancelledAtMs = undefined;
  readonly reclaimedAtMs = undefined;
  readonly result = undefined;
  readonly lastErrorAtMs = undefined;
  // Not in the claim reply (an expired job is never claimed); progress starts afresh.
  readonly expiresAtMs = undefined;
  readonly progress = undefined;
  // Not in the claim reply either, so a claim costs the same with or without: ctx.checkpointed() reads it.
  readonly checkpoint = undefined;
  readonly kind: string | undefined;
  readonly payload: unknown;
  readonly visibilityMs: number;
  readonly enqueuedAtMs: number | undefined;
  // The claim reads only the message (last_error); getJob reads the whole form.
  readonly error: { message: string } | undefined;
  readonly priority: number;
  #fields: Readonly<Record<string, string>> | undefined;
  readonly #kindField: string | undefined;
  readonly #enqueuedAtField: number | undefined;
  readonly #priorityField: number | undefined;

  readonly id: string;
  readonly token: string;
  readonly attempts: number;
  readonly maxAttempts: number | undefined;
  readonly leaseExpiresAtMs: number;
  readonly rawPayload: string | undefined;
  readonly lastError: string | undefined;
  readonly traceparent: string | undefined;
  readonly claimedAtMs: number;

  constructor(
    id: string,
    token: string,
    attempts: number,
    maxAttempts: number | undefined,
    leaseExpiresAtMs: number,
    rawPayload: string | undefined,
    kindField: string | undefined,
    enqueuedAt: number | undefined,
    lastError: string | undefined,
    priority: number | undefined,
    traceparent: string | undefined,
    claimedAtMs: number,
  ) {
    this.id = id;
    this.token = token;
    this.attempts = attempts;
    this.maxAttempts = maxAttempts;
    this.leaseExpiresAtMs = leaseExpiresAtMs;
    this.rawPayload = rawPayload;
    this.lastError = lastError;
    this.traceparent = traceparent;
    this.claimedAtMs = claimedAtMs;
    const payload = parsePayload(rawPayload);
    const payloadKind = typeof payload === 'object' && payload !== null ? (payload as { kind?: unknown }).kind : undefined;
    this.payload = payload;
    this.kind = typeof payloadKind === 'string' ? payloadKind : kindField;
    this.visibilityMs = leaseExpiresAtMs - claimedAtMs;
    this.enqueuedAtMs = enqueuedAt !== undefined && enqueuedAt > 0 ? enqueuedAt : undefined;
    this.error = lastError !== undefined ? { message: lastError } : undefined;
    this.priority = priority ?? 0;
    this.#kindField = kindField;
    this.#enqueuedAtField = enqueuedAt;
    this.#priorityField = priority;
  }

  get fields(): Readonly<Record<string, string>> {
    if (this.#fields !== undefined) return this.#fields;
    const fields: Record<string, string> = {
      id: this.id,
      status: 'processing',
      claim_token: this.token,
      claimed_at_ms: String(this.claimedAtMs),
      lease_expires_at_ms: String(this.leaseExpiresAtMs),
      attempts: String(this.attempts),
    };
    if (this.maxAttempts !== undefined) fields.max_attempts = String(this.maxAttempts);
    if (this.rawPayload !== undefined) fields.payload = this.rawPayload;
    if (this.#kindField !== undefined) fields.kind = this.#kindField;
    if (this.#enqueuedAtField !== undefined) fields.enqueued_at_ms = String(this.#enqueuedAtField);
    if (this.lastError !== undefined) fields.last_error = this.lastError;
    if (this.#priorityField !== undefined) fields.priority = String(this.#priorityField);
    if (this.traceparent !== undefined) fields.traceparent = this.traceparent;
    this.#fields = Object.freeze(fields);
    return this.#fields;
  }

  /** As a plain object (what a spread or JSON.stringify would give), `fields` included. */
  toJSON(): ClaimedJob {
    return { ...this, fields: this.fields };
  }
}

function readClaimedJob(reply: readonly unknown[], at: number, nowMs: number, traced: boolean): ClaimedJob {
  return new ReplyJob(
    String(reply[at]),
    String(reply[at + 1]),
    numberOf(reply[at + 2]) ?? 1,
    numberOf(reply[at + 3]),
    Number(reply[at + 4]),
    optional(reply[at + 5]),
    optional(reply[at + 6]),
    numberOf(reply[at + 7]),
    optional(reply[at + 8]) || undefined,
    numberOf(reply[at + 9]),
    traced ? optional(reply[at + 10]) || undefined : undefined,
    nowMs,
  );
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
