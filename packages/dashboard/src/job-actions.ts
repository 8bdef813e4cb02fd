import { JOB_ID_PATTERN, MAX_PRIORITY, MIN_PRIORITY, type ListState } from '@jobs/core';
import type { DashboardDataSource } from './data-source.ts';
import { HttpError } from './http-io.ts';
import { findJobs, type JobQuery } from './job-search.ts';

/**
 * The operator's actions on one job that the capabilities `promote`, `changePriority` and
 * `remove` bring, and `bulk`: one of the job actions on many jobs, chosen by id or by a filter
 * of a state's list. Each answer carries `count`, the jobs it changed.
 */

/** The actions a `bulk` request may take. */
export const BULK_ACTIONS = ['retry', 'cancel', 'delete', 'promote', 'priority'] as const;

/** One of {@link BULK_ACTIONS}. */
export type BulkAction = (typeof BULK_ACTIONS)[number];

/** The most jobs one bulk request acts on (its `expected` and its `ids`). */
export const BULK_MAX = 1_000;

/** How many jobs of a bulk request are acted on at once (each one script call). */
const BULK_PARALLEL = 16;

/** One job's outcome: done, or the status that kept it (`not_found` when there is none). */
type Outcome = true | string;

/** What a bulk request did. */
export interface BulkAnswer {
  readonly action: BulkAction;
  /** The jobs the ids or the filter named (by filter: among the ids the bounded scan read). */
  readonly matched: number;
  /** The jobs it changed. */
  readonly done: number;
  /** The jobs it left alone, each with the status that kept it. */
  readonly skipped: readonly { readonly id: string; readonly status: string }[];
  /** True when more jobs matched than it acted on (`expected`), or the scan stopped before the list's end. */
  readonly more: boolean;
  /** The same as `done`: every action's answer says how many jobs it changed. */
  readonly count: number;
}

function assertJobId(id: unknown): asserts id is string {
  if (typeof id !== 'string' || !JOB_ID_PATTERN.test(id)) throw new HttpError(400, 'bad_id', 'not a job id: ids are 1-128 letters, digits and . _ : -, starting with a letter or digit');
}

function capability<K extends 'promote' | 'changePriority' | 'remove'>(source: DashboardDataSource, name: K): NonNullable<DashboardDataSource[K]> {
  const run = source[name];
  if (typeof run !== 'function') throw new HttpError(404, 'no_capability', `this dashboard cannot ${name === 'changePriority' ? 'change priorities' : name === 'remove' ? 'delete jobs' : 'promote jobs'}`);
  return run.bind(source) as NonNullable<DashboardDataSource[K]>;
}

/** The body's `priority`: a whole number core takes, else 400. */
export function priorityOf(body: Record<string, unknown>): number {
  const { priority } = body;
  if (typeof priority !== 'number' || !Number.isSafeInteger(priority) || priority < MIN_PRIORITY || priority > MAX_PRIORITY) {
    throw new HttpError(400, 'bad_body', `priority must be a whole number from ${MIN_PRIORITY} to ${MAX_PRIORITY}`);
  }
  return priority;
}

/** Runs `action` on job `id`: true, or the status that kept it. Checks the capability first. */
async function actOn(source: DashboardDataSource, queue: string, action: BulkAction, id: string, priority: number): Promise<Outcome> {
  switch (action) {
    case 'retry':
      return source.retry(queue, id);
    case 'cancel': {
      const outcome = await source.cancel(queue, id);
      return outcome.cancelled ? true : outcome.status;
    }
    case 'delete': {
      const outcome = await capability(source, 'remove')(queue, id);
      return outcome.removed ? true : outcome.status;
    }
    case 'promote': {
      const outcome = await capability(source, 'promote')(queue, id);
      return outcome.promoted ? true : outcome.status;
    }
    case 'priority': {
      const outcome = await capability(source, 'changePriority')(queue, id, priority);
      return outcome.changed ? true : outcome.status;
    }
  }
}

/** Throws the answer for a job an action left alone: 404 when there is none, else 409 with its status. */
function refused(queue: string, id: string, status: string, wanted: string): never {
  if (status === 'not_found') throw new HttpError(404, 'no_job', `no job ${id} in ${queue} (or its record has expired)`);
  throw new HttpError(409, 'conflict', `job ${id} is ${status} now: ${wanted}, so nothing was changed`);
}

/** `jobs/:id/promote`, `jobs/:id/priority` and `jobs/:id/delete`: one job, 409 when its state refuses. */
export async function jobAction(source: DashboardDataSource, queue: string, action: 'promote' | 'priority' | 'delete', id: string | undefined, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  assertJobId(id);
  if (action === 'priority') {
    const priority = priorityOf(body);
    const outcome = await actOn(source, queue, 'priority', id, priority);
    if (outcome !== true) refused(queue, id, outcome, 'only a job waiting to start (or delayed) can change priority');
    return { id, priority, count: 1 };
  }
  const outcome = await actOn(source, queue, action, id, 0);
  if (action === 'promote') {
    if (outcome !== true) refused(queue, id, outcome, 'only a delayed job can be promoted');
    return { id, promoted: true, count: 1 };
  }
  if (outcome !== true) refused(queue, id, outcome, 'a running job cannot be deleted (cancel it or let it finish first)');
  return { id, deleted: true, count: 1 };
}

/**
 * The keys a bulk filter may have: every filter of the jobs list's query, the search filters
 * (error code, id, payload text, time range) too, as the page sends what it shows (offset is
 * where its scan starts).
 */
const FILTER_KEYS = new Set(['state', 'kind', 'field', 'value', 'code', 'id', 'text', 'from', 'to', 'offset']);

/**
 * The bulk body's filter as a jobs-list query (`toQuery`: the list route's own checks, fed the
 * filter's values as its query parameters), its page as long as `expected`.
 */
function filterQuery(filter: unknown, expected: number, toQuery: (params: URLSearchParams) => JobQuery): JobQuery {
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) throw new HttpError(400, 'bad_body', 'filter must be an object: { state, kind?, field?, value?, code?, id?, text?, from?, to? }');
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filter)) {
    if (!FILTER_KEYS.has(key)) throw new HttpError(400, 'bad_body', `filter.${key} is not a filter (expected ${[...FILTER_KEYS].join(', ')})`);
    if (typeof value !== 'string' && !(key === 'offset' && typeof value === 'number')) throw new HttpError(400, 'bad_body', `filter.${key} must be a string`);
    params.set(key, String(value));
  }
  if (!params.has('state')) throw new HttpError(400, 'bad_body', 'filter.state is required: the list the filter reads');
  // The page is as long as the count confirmed (a bulk request is not a page a person reads).
  return { ...toQuery(params), limit: expected };
}

/** What {@link bulk} works with: the source, the list route's query checks and the state depths. */
export interface BulkContext {
  readonly source: DashboardDataSource;
  readonly scanLimit: number;
  /** The list route's checks of a query (state, kind, field, value...), as for `GET jobs`. */
  toQuery(params: URLSearchParams): JobQuery;
  /** The depth of a state's list (null: not counted), as the list route reads it. */
  depth(queue: string, state: ListState): Promise<number | null>;
}

/**
 * `bulk`: `action` on the jobs `ids` names, or on those `filter` matches among the ids one
 * bounded scan of its list reads (job-search's `findJobs`: at most the scan limit, never the
 * whole list), at most `expected` of them: the count the operator confirmed.
 */
export async function bulk(ctx: BulkContext, queue: string, body: Record<string, unknown>): Promise<BulkAnswer> {
  const action = body.action as BulkAction;
  if (!BULK_ACTIONS.includes(action)) throw new HttpError(400, 'bad_body', `action must be one of ${BULK_ACTIONS.join(', ')}`);
  const { expected } = body;
  if (typeof expected !== 'number' || !Number.isSafeInteger(expected) || expected < 1 || expected > BULK_MAX) {
    throw new HttpError(400, 'bad_body', `expected must be the number of jobs the operator confirmed, 1 to ${BULK_MAX}`);
  }
  const priority = action === 'priority' ? priorityOf(body) : 0;
  for (const key of Object.keys(body)) {
    if (!['action', 'ids', 'filter', 'expected', 'priority'].includes(key)) throw new HttpError(400, 'bad_body', `${key} is not a field of a bulk request`);
  }
  if ((body.ids === undefined) === (body.filter === undefined)) throw new HttpError(400, 'bad_body', 'give either ids or filter');
  let ids: string[];
  let more: boolean;
  if (body.ids !== undefined) {
    if (!Array.isArray(body.ids) || body.ids.length === 0 || body.ids.length > BULK_MAX) throw new HttpError(400, 'bad_body', `ids must be a list of 1 to ${BULK_MAX} job ids`);
    for (const id of body.ids) assertJobId(id);
    ids = [...new Set(body.ids as string[])];
    more = false;
  } else {
    const query = filterQuery(body.filter, expected, ctx.toQuery);
    const page = await findJobs(ctx.source, queue, query, await ctx.depth(queue, query.state), ctx.scanLimit);
    ids = page.jobs.map((job) => job.id);
    more = page.nextOffset !== null;
  }
  const matched = ids.length;
  if (matched > expected) more = true;
  const chosen = ids.slice(0, expected);
  const skipped: { id: string; status: string }[] = [];
  let done = 0;
  for (let at = 0; at < chosen.length; at += BULK_PARALLEL) {
    const slice = chosen.slice(at, at + BULK_PARALLEL);
    const outcomes = await Promise.all(slice.map((id) => actOn(ctx.source, queue, action, id, priority)));
    outcomes.forEach((outcome, index) => {
      if (outcome === true) done += 1;
      else skipped.push({ id: slice[index] as string, status: outcome });
    });
  }
  return { action, matched, done, skipped, more, count: done };
}
