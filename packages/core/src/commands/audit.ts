import { InvalidArgumentError } from '../errors.ts';
import { withRedisErrors } from '../redis-connection.ts';
import { assertWholeNumber } from '../whole-number.ts';
import type { QueueContext } from './queue-context.ts';

/** The most entries an audit trail keeps by default: older ones are trimmed as new ones come. */
export const AUDIT_MAX_ENTRIES = 10_000;

/** The longest a target's JSON may be in an entry; a longer one is clipped (`clipped: true`). */
export const AUDIT_TARGET_MAX_CHARS = 1_024;

/** The most entries one read of the trail returns. */
export const AUDIT_PAGE_MAX = 1_000;

/** What an action was done to: a job, a kind, the jobs a filter matched, or (none of them) the queue. */
export interface AuditTarget {
  readonly id?: string;
  readonly kind?: string;
  /** The filter a bulk action resolved its jobs with, as it was given; a clipped one is its JSON text cut short. */
  readonly filter?: unknown;
  /** The ids a bulk action was given. */
  readonly ids?: readonly string[];
  /** True when the target was longer than {@link AUDIT_TARGET_MAX_CHARS} and was cut. */
  readonly clipped?: true;
}

/** An action to record (see {@link Queue.recordAudit}). */
export interface AuditRecord {
  /** Who acted: the role (`operator`, `viewer`, `cli`, or one a dashboard's `authorize` hook gave): 1-32 printable characters. */
  readonly role: string;
  /** Which of that role's users: a token's label, an SSO user, `user@host`: see {@link AUDIT_LABEL_PATTERN}. */
  readonly label: string;
  /** What was done: `retry`, `purge`, `bulk:cancel`...: 1-64 letters, digits and `. _ : -`. */
  readonly action: string;
  /** The queue as the actor named it, when not the trail's own (a partition of a partitioned queue). */
  readonly queue?: string;
  readonly target?: AuditTarget;
  /** How many jobs (or queues, or kinds) the action changed: 0 when it failed. */
  readonly count: number;
  /** The error code of an action that failed (`conflict`, `no_job`...); absent when it succeeded. */
  readonly error?: string;
}

/** One entry of an audit trail, as read back. */
export interface AuditEntry {
  /** The stream id: where a next page starts (`before`). */
  readonly id: string;
  /** When it was recorded, ms since the epoch on the Redis clock. */
  readonly atMs: number;
  readonly who: { readonly role: string; readonly label: string };
  readonly action: string;
  readonly queue?: string;
  readonly target: AuditTarget;
  readonly count: number;
  readonly error?: string;
}

/** A page of an audit trail, newest first; `next` is the `before` of the page after it, or null at the oldest entry. */
export interface AuditPage {
  readonly entries: AuditEntry[];
  readonly next: string | null;
}

/**
 * A label (who acted): 1-64 characters, none a control, format or line-separator character, no
 * white space at either end. Names in any script pass (`José`, `李雷`); what would hide or
 * rewrite text on a page or a terminal does not.
 */
export const AUDIT_LABEL_PATTERN = /^[^\p{C}\p{Zl}\p{Zp}\s](?:[^\p{C}\p{Zl}\p{Zp}]{0,62}[^\p{C}\p{Zl}\p{Zp}\s])?$/u;

const ACTION = /^[A-Za-z0-9._:-]{1,64}$/;
const STREAM_ID = /^\d{1,16}-\d{1,16}$/;

function assertPrintable(field: string, value: unknown, max: number): asserts value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max || /[^\x20-\x7e]/.test(value)) {
    throw new InvalidArgumentError(field, `expected 1 to ${max} printable ASCII characters`);
  }
}

/** The target as stored: its JSON, clipped to {@link AUDIT_TARGET_MAX_CHARS}, keeping the id and kind whole. */
function targetText(target: AuditTarget): string {
  const whole = JSON.stringify(target);
  if (whole.length <= AUDIT_TARGET_MAX_CHARS) return whole;
  const kept = { ...(target.id !== undefined && { id: String(target.id).slice(0, 128) }), ...(target.kind !== undefined && { kind: String(target.kind).slice(0, 64) }), clipped: true as const };
  const room = AUDIT_TARGET_MAX_CHARS - JSON.stringify({ ...kept, filter: '' }).length - 16;
  // Cut the JSON text, then re-escape it: the stored target is always valid JSON.
  let filter = whole.slice(0, Math.max(0, room));
  while (JSON.stringify({ ...kept, filter }).length > AUDIT_TARGET_MAX_CHARS) filter = filter.slice(0, -16);
  return JSON.stringify({ ...kept, filter });
}

/** Checks a record, writing nothing on bad input: `JOBS_INVALID_ARGUMENT` naming the field. */
function assertRecord(record: AuditRecord): void {
  if (typeof record !== 'object' || record === null) throw new InvalidArgumentError('record', 'expected an object');
  assertPrintable('role', record.role, 32);
  if (typeof record.label !== 'string' || !AUDIT_LABEL_PATTERN.test(record.label)) throw new InvalidArgumentError('label', 'expected 1 to 64 characters, no control characters, no space at either end');
  if (typeof record.action !== 'string' || !ACTION.test(record.action)) throw new InvalidArgumentError('action', "expected 1 to 64 letters, digits, '.', '_', ':' or '-'");
  if (record.queue !== undefined) assertPrintable('queue', record.queue, 128);
  if (record.target !== undefined && (typeof record.target !== 'object' || record.target === null || Array.isArray(record.target))) throw new InvalidArgumentError('target', 'expected an object');
  assertWholeNumber('count', record.count, 0, Number.MAX_SAFE_INTEGER);
  if (record.error !== undefined && (typeof record.error !== 'string' || !ACTION.test(record.error))) throw new InvalidArgumentError('error', "expected an error code: 1 to 64 letters, digits, '.', '_', ':' or '-'");
}

/** Ms since the epoch of a stream id (its first part is the Redis clock when it was added). */
function msOf(id: string): number {
  return Number(id.slice(0, id.indexOf('-')));
}

function parseTarget(text: string | undefined): AuditTarget {
  try {
    const value: unknown = JSON.parse(text ?? '{}');
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as AuditTarget) : {};
  } catch {
    // An entry written by hand: shown without a target.
    return {};
  }
}

function parseEntry(id: string, pairs: readonly string[]): AuditEntry {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) f[pairs[i] as string] = pairs[i + 1] as string;
  return {
    id,
    atMs: msOf(id),
    who: { role: f.role ?? '', label: f.label ?? '' },
    action: f.action ?? '',
    ...(f.queue !== undefined && { queue: f.queue }),
    target: parseTarget(f.target),
    count: Number(f.count ?? 0),
    ...(f.error !== undefined && { error: f.error }),
  };
}

/**
 * See {@link Queue.recordAudit}: one XADD, trimmed exactly to `maxEntries`, so the trail's size
 * has a hard bound; the stream id (Redis clock) is the entry's time.
 */
export async function recordAudit<P>(ctx: QueueContext<P>, record: AuditRecord, options: { maxEntries?: number } = {}): Promise<AuditEntry> {
  assertRecord(record);
  const maxEntries = assertWholeNumber('maxEntries', options.maxEntries ?? AUDIT_MAX_ENTRIES, 1, 10_000_000);
  await ctx.ready();
  const fields = ['role', record.role, 'label', record.label, 'action', record.action];
  if (record.queue !== undefined) fields.push('queue', record.queue);
  fields.push('target', targetText(record.target ?? {}), 'count', String(record.count));
  if (record.error !== undefined) fields.push('error', record.error);
  const id = (await withRedisErrors(() => ctx.client.xadd(ctx.keys.audit, 'MAXLEN', maxEntries, '*', ...fields))) as string;
  return parseEntry(id, fields);
}

/** See {@link Queue.auditTrail}: one XREVRANGE of `limit + 1` entries (the one past the page says whether there is more). */
export async function readAudit<P>(ctx: QueueContext<P>, options: { limit?: number; before?: string } = {}): Promise<AuditPage> {
  const limit = assertWholeNumber('limit', options.limit ?? 50, 1, AUDIT_PAGE_MAX);
  if (options.before !== undefined && (typeof options.before !== 'string' || !STREAM_ID.test(options.before))) {
    throw new InvalidArgumentError('before', 'expected an entry id from an earlier page (like 1700000000000-0)');
  }
  await ctx.ready();
  const end = options.before === undefined ? '+' : `(${options.before}`;
  const rows = await withRedisErrors(() => ctx.client.xrevrange(ctx.keys.audit, end, '-', 'COUNT', limit + 1));
  const entries = rows.slice(0, limit).map(([id, pairs]) => parseEntry(id, pairs));
  return { entries, next: rows.length > limit ? (entries[entries.length - 1] as AuditEntry).id : null };
}
