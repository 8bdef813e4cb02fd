import type { ServerResponse } from 'node:http';
import { isJobsError, type AuditEntry, type AuditTarget, type Logger } from '@jobs/core';
import type { DashboardCaller } from './authorize.ts';
import type { DashboardDataSource } from './data-source.ts';
import { HttpError, sendJson } from './http-io.ts';
import { clipText, shownNumber, shownTime } from './shown-values.ts';

/** What recording an action needs of the API's context. */
export interface AuditContext {
  readonly source: DashboardDataSource;
  readonly auditMaxEntries: number;
  readonly log: Logger;
}

/** An action as the trail records it: by whom, what, on which queue and target. */
export interface AuditedAction {
  readonly queue: string;
  /** The route's action; a bulk one's is `bulk:<action>` (`bulk:retry`). */
  readonly action: string;
  readonly who: DashboardCaller;
  readonly target: AuditTarget;
}

const IDS_KEPT = 20;

/**
 * The target of an action from its path and body, for every action alike: the job id in the
 * path, and the body's `kind`, `filter` and `ids` (the first 20) when it has them.
 */
export function auditTargetOf(id: string | undefined, body: Record<string, unknown>): AuditTarget {
  const ids = Array.isArray(body.ids) ? body.ids.filter((each): each is string => typeof each === 'string') : undefined;
  return {
    ...(id !== undefined && { id }),
    ...(typeof body.kind === 'string' && { kind: body.kind }),
    ...(typeof body.filter === 'object' && body.filter !== null && { filter: body.filter }),
    ...(ids && { ids: ids.slice(0, IDS_KEPT) }),
  };
}

/** The action's name in the trail: the route's, and for `bulk` the action it applies after a colon (`bulk:retry`). */
export function auditActionOf(action: string, body: Record<string, unknown>): string {
  return action === 'bulk' && typeof body.action === 'string' && /^[a-z-]{1,32}$/.test(body.action) ? `${action}:${body.action}` : action;
}

/** The error code an action failed with, as the trail records it. */
function errorCodeOf(error: unknown): string {
  if (error instanceof HttpError) return error.code;
  if (isJobsError(error)) return error.code;
  return 'internal';
}

/**
 * Runs an action and records it in the queue's audit trail: with the answer's `count` when it
 * succeeds, with count 0 and the error's code when it fails (then rethrows). The action's answer
 * stands when the trail cannot be written: that failure is logged.
 */
export async function audited<T>(ctx: AuditContext, action: AuditedAction, run: () => Promise<T>): Promise<T> {
  let answer: T;
  try {
    answer = await run();
  } catch (error) {
    await record(ctx, action, 0, errorCodeOf(error));
    throw error;
  }
  const count = (answer as { count?: unknown } | null)?.count;
  await record(ctx, action, typeof count === 'number' && Number.isSafeInteger(count) && count >= 0 ? count : 0);
  return answer;
}

async function record(ctx: AuditContext, action: AuditedAction, count: number, error?: string): Promise<void> {
  if (!ctx.source.recordAudit) return;
  try {
    await ctx.source.recordAudit(
      action.queue,
      { role: action.who.role, label: action.who.label, action: action.action, queue: action.queue, target: action.target, count, ...(error !== undefined && { error }) },
      { maxEntries: ctx.auditMaxEntries },
    );
  } catch (failure) {
    ctx.log.error({ queue: action.queue, action: action.action, code: isJobsError(failure) ? failure.code : undefined }, 'dashboard could not record an action in the audit trail');
  }
}

/** An entry as the page shows it: texts clipped, times no `Date` holds as null. */
function shownEntry(entry: AuditEntry): Record<string, unknown> {
  const text = (value: unknown, max: number): string | undefined => (value === undefined ? undefined : clipText(String(value), max));
  const target = entry.target;
  return {
    id: text(entry.id, 40),
    atMs: shownTime(entry.atMs),
    who: { role: text(entry.who.role, 32), label: text(entry.who.label, 64) },
    action: text(entry.action, 64),
    ...(entry.queue !== undefined && { queue: text(entry.queue, 128) }),
    target: {
      ...(target.id !== undefined && { id: text(target.id, 128) }),
      ...(target.kind !== undefined && { kind: text(target.kind, 64) }),
      ...(target.filter !== undefined && { filter: typeof target.filter === 'string' ? text(target.filter, 1_024) : target.filter }),
      ...(Array.isArray(target.ids) && { ids: target.ids.slice(0, IDS_KEPT).map((id) => text(id, 128)) }),
      ...(target.clipped === true && { clipped: true }),
    },
    count: shownNumber(entry.count),
    ...(entry.error !== undefined && { error: text(entry.error, 64) }),
  };
}

/** Answers `GET /api/queues/:q/audit?limit=&before=`: newest first, `next` the `before` of the next page. */
export async function auditRoute(ctx: AuditContext, response: ServerResponse, queue: string, params: URLSearchParams): Promise<void> {
  if (!ctx.source.auditTrail) throw new HttpError(404, 'no_capability', 'this dashboard keeps no audit trail');
  const rawLimit = params.get('limit') ?? '';
  if (rawLimit !== '' && !/^\d{1,4}$/.test(rawLimit)) throw new HttpError(400, 'bad_query', 'limit must be a whole number from 1 to 1000', 'limit');
  const limit = rawLimit === '' ? 50 : Number(rawLimit);
  if (limit < 1 || limit > 1_000) throw new HttpError(400, 'bad_query', 'limit must be a whole number from 1 to 1000', 'limit');
  const before = params.get('before') || undefined;
  if (before !== undefined && !/^\d{1,16}-\d{1,16}$/.test(before)) throw new HttpError(400, 'bad_query', "before must be a page's next", 'before');
  const page = await ctx.source.auditTrail(queue, { limit, ...(before !== undefined && { before }) });
  sendJson(response, 200, { queue, entries: page.entries.map(shownEntry), next: page.next });
}
