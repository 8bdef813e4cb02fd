import type { IncomingMessage, ServerResponse } from 'node:http';
import { isJobsError, JOB_ID_PATTERN, KIND_NAME_PATTERN, LIST_STATES, type JobRecord, type ListState, type Logger } from '@jobs/core';
import { toJobsError } from '@jobs/core/internal';
import { auditActionOf, audited, auditRoute, auditTargetOf } from './audit-trail.ts';
import type { AccessCheck, DashboardCaller } from './authorize.ts';
import type { DashboardDataSource, ScheduleInfo, TimelineEntry } from './data-source.ts';
import { historyAnswer, historyQuery } from './history-route.ts';
import { decodePathPart, HttpError, readJsonBody, sendJson } from './http-io.ts';
import { findJobs, type JobQuery } from './job-search.ts';
import { bulk, jobAction } from './job-actions.ts';
import { shownError, trailOf } from './job-trail-detail.ts';
import type { RateHistory } from './rate-history.ts';
import { readRoute } from './read-routes.ts';
import { searchFilters } from './search-query.ts';
import { clipText, detailText, detailValue, shownNumber, shownTime } from './shown-values.ts';
import { reasonLine } from '@jobs/core/internal';

/** What the API routes work with. */
export interface ApiContext {
  readonly source: DashboardDataSource;
  readonly history: RateHistory;
  readonly scanLimit: number;
  readonly maxPageSize: number;
  readonly redriveLimit: number;
  /** The most entries a queue's audit trail keeps. */
  readonly auditMaxEntries: number;
  readonly log: Logger;
}

/** The states the jobs list takes (the session tells the page). */
export const STATES: readonly ListState[] = LIST_STATES;
const FIELD_PATH = /^[A-Za-z0-9_$-]{1,64}(\.[A-Za-z0-9_$-]{1,64}){0,7}$/;

function wholeNumber(raw: string | null, name: string, fallback: number, max: number): number {
  if (raw === null || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value > max) throw new HttpError(400, 'bad_query', `${name} must be a whole number from 0 to ${max}`);
  return value;
}

function text(raw: string | null, name: string, max: number): string | undefined {
  if (raw === null || raw === '') return undefined;
  if (raw.length > max) throw new HttpError(400, 'bad_query', `${name} may have at most ${max} characters`);
  return raw;
}

function jobQuery(params: URLSearchParams, maxPageSize: number): JobQuery {
  const state = params.get('state') ?? 'pending';
  if (!STATES.includes(state as ListState)) throw new HttpError(400, 'bad_query', `state must be one of ${STATES.join(', ')}`);
  const field = text(params.get('field'), 'field', 200);
  if (field !== undefined && !FIELD_PATH.test(field)) throw new HttpError(400, 'bad_query', 'field must be a payload field name or a dotted path of them (user.id)');
  const kind = text(params.get('kind'), 'kind', 128);
  const value = text(params.get('value'), 'value', 512);
  return {
    state: state as ListState,
    offset: wholeNumber(params.get('offset'), 'offset', 0, Number.MAX_SAFE_INTEGER),
    limit: Math.max(1, wholeNumber(params.get('limit'), 'limit', 25, maxPageSize)),
    ...(kind !== undefined && { kind }),
    ...(field !== undefined && { field }),
    ...(value !== undefined && { value }),
    ...searchFilters(params),
  };
}

/** A state's depth, or null when the source could not count it (too many groups waiting). */
function depthOf(stats: Awaited<ReturnType<DashboardDataSource['stats']>>, state: ListState): number | null {
  // A source written before `waitingDepth` existed lists its pending jobs as the waiting ones.
  if (state === 'waiting') {
    const { waitingDepth } = stats as { waitingDepth?: number | null };
    return waitingDepth === undefined ? stats.pendingDepth : waitingDepth;
  }
  // A source written before a state's depth existed says none (the list reads until it runs short).
  const depth = (stats as unknown as Record<string, number | null | undefined>)[state === 'waiting-children' ? 'waitingChildrenDepth' : `${state}Depth`];
  return depth ?? null;
}

/**
 * A job as the detail view shows it: every field but the claim token, which proves a claim.
 * Times no `Date` holds read as null (the hash's text stays in `fields`), long texts are cut.
 */
function jobDetail(job: JobRecord): Record<string, unknown> {
  const { claim_token: _token, ...stored } = job.fields;
  const fields = Object.fromEntries(Object.entries(stored).map(([name, value]) => [detailText(name), detailText(value)]));
  return {
    id: detailText(job.id),
    status: detailText(job.status),
    kind: job.kind === undefined ? undefined : detailText(job.kind),
    attempts: shownNumber(job.attempts),
    maxAttempts: shownNumber(job.maxAttempts),
    payload: job.payload === undefined ? (job.rawPayload === undefined ? undefined : detailText(job.rawPayload)) : detailValue(job.payload, job.rawPayload),
    result: detailValue(job.result, job.fields.result),
    lastError: job.lastError === undefined ? undefined : detailText(job.lastError),
    error: shownError(job.error),
    progress: job.progress === undefined ? undefined : detailValue(job.progress, job.fields.progress),
    timing: {
      enqueuedAtMs: shownTime(job.enqueuedAtMs),
      runAtMs: shownTime(job.runAtMs),
      claimedAtMs: shownTime(job.claimedAtMs),
      leaseExpiresAtMs: shownTime(job.leaseExpiresAtMs),
      lastErrorAtMs: shownTime(job.lastErrorAtMs),
      completedAtMs: shownTime(job.completedAtMs),
      failedAtMs: shownTime(job.failedAtMs),
      cancelledAtMs: shownTime(job.cancelledAtMs),
      reclaimedAtMs: shownTime(job.reclaimedAtMs),
    },
    fields,
  };
}

/**
 * The job's timeline, or a note why none is shown: a log entry list written by hand (not stream
 * ids) makes the read fail for that job alone, and its detail is still shown. Redis being down
 * still fails the request.
 */
async function timelineOf(ctx: ApiContext, queue: string, id: string): Promise<{ timeline?: readonly Record<string, unknown>[]; timelineError?: string }> {
  if (!ctx.source.timeline) return {};
  let entries: readonly TimelineEntry[];
  try {
    entries = await ctx.source.timeline(queue, id);
  } catch (error) {
    if (isJobsError(error, 'JOBS_REDIS_UNAVAILABLE')) throw error;
    ctx.log.warn({ queue, id, code: isJobsError(error) ? error.code : undefined }, 'dashboard could not read a job timeline');
    return { timelineError: 'the event log could not be read for this job' };
  }
  // A queue that keeps no event log has an empty timeline: not shown.
  if (entries.length === 0) return {};
  return { timeline: entries.map((entry) => ({ atMs: shownTime(entry.atMs), event: detailText(String(entry.event)), ...(entry.detail !== undefined && { detail: detailText(String(entry.detail)) }) })) };
}

/**
 * Why the job is not running, as the detail shows it: each reason's code and its line for people
 * (times in ISO 8601 and relative to the look). A reason that cannot be read (a hand-written
 * hash, a source's own) leaves a note for that job alone; Redis being down fails the request.
 */
async function whyOf(ctx: ApiContext, queue: string, id: string): Promise<{ why?: Record<string, unknown>; whyError?: string }> {
  if (!ctx.source.why) return {};
  try {
    const answer = await ctx.source.why(queue, id);
    if (!answer) return {};
    const reasons = answer.reasons.map((reason) => ({ code: clipText(String(reason.code), 64), text: detailText(reasonLine(reason, answer.atMs) ?? String(reason.code)) }));
    return { why: { atMs: shownTime(answer.atMs), status: detailText(String(answer.status)), reasons } };
  } catch (error) {
    if (isJobsError(error, 'JOBS_REDIS_UNAVAILABLE')) throw error;
    ctx.log.warn({ queue, id, code: isJobsError(error) ? error.code : undefined }, 'dashboard could not say why a job is not running');
    return { whyError: 'why this job is not running could not be read' };
  }
}

/** A schedule as the panel draws it: a next run no `Date` holds reads as null, texts cut to a row's size. */
function shownSchedule(schedule: ScheduleInfo): Record<string, unknown> {
  const text = (value: string | undefined): string | undefined => (value === undefined ? undefined : clipText(String(value), 500));
  return { name: text(schedule.name), kind: text(schedule.kind), every: text(schedule.every), nextRunAtMs: shownTime(schedule.nextRunAtMs), status: text(schedule.status) };
}

/** Stats as the page draws them: an age computed from a time no `Date` holds reads as null. */
function shownStats<S extends { oldestPendingAgeMs: number | null }>(stats: S): S {
  return { ...stats, oldestPendingAgeMs: shownTime(stats.oldestPendingAgeMs) };
}

function assertId(id: string): void {
  if (!JOB_ID_PATTERN.test(id)) throw new HttpError(400, 'bad_id', 'not a job id: ids are 1-128 letters, digits and . _ : -, starting with a letter or digit');
}

/** The overview: every queue's stats, admission state (pauses, limits), live workers and rates. */
async function overview(ctx: ApiContext): Promise<unknown> {
  const names = await ctx.source.queueNames();
  ctx.history.keepOnly(names);
  const queues = await Promise.all(
    names.map(async (name) => {
      const stats = await ctx.source.stats(name);
      const flow = await ctx.source.flowState?.(name, stats);
      const workers = await ctx.source.workers?.(name);
      ctx.history.record(name, stats);
      return { name, stats: shownStats(stats), ...(flow && { flow }), ...(workers && { liveWorkers: workers.length }), rates: ctx.history.points(name) };
    }),
  );
  return { queues };
}

/**
 * Answers `GET` and `POST` under `/api/queues/...` and `/api/overview`; false when the path is not
 * an API route. Reads were let through by the caller; each action asks `check` (with its queue,
 * id, kind and count) and is recorded in the queue's audit trail, whatever the action.
 */
export async function handleApi(ctx: ApiContext, request: IncomingMessage, response: ServerResponse, path: string, params: URLSearchParams, check: AccessCheck): Promise<boolean> {
  const method = request.method ?? 'GET';
  if (path === '/api/overview' && method === 'GET') {
    sendJson(response, 200, await overview(ctx));
    return true;
  }
  const audit = /^\/api\/queues\/([^/]+)\/audit$/.exec(path);
  if (audit && method === 'GET') {
    const queue = decodePathPart(audit[1] as string, 'queue');
    if (!(await ctx.source.queueNames()).includes(queue)) throw new HttpError(404, 'no_queue', `no queue ${JSON.stringify(queue)} on this dashboard`);
    await auditRoute(ctx, response, queue, params);
    return true;
  }
  if (method === 'GET' && (await readRoute(ctx, response, path, params))) return true;
  const match = /^\/api\/queues\/([^/]+)\/(jobs|jobs\/([^/]+)|jobs\/([^/]+)\/(retry|cancel|promote|priority|delete)|redrive-failed|purge|pause|resume|quiet-workers|resume-workers|bulk|schedules|history)$/.exec(path);
  if (!match) return false;
  const queue = decodePathPart(match[1] as string, 'queue');
  if (!(await ctx.source.queueNames()).includes(queue)) throw new HttpError(404, 'no_queue', `no queue ${JSON.stringify(queue)} on this dashboard`);
  const route = match[2] as string;
  const id = match[3] ?? match[4];
  const action = match[5] ?? (['redrive-failed', 'purge', 'pause', 'resume', 'quiet-workers', 'resume-workers', 'bulk'].includes(route) ? route : undefined);
  if (action === undefined) {
    if (method !== 'GET') throw new HttpError(405, 'method', `${method} is not allowed here`);
    if (route === 'jobs') {
      const query = jobQuery(params, ctx.maxPageSize);
      const stats = await ctx.source.stats(queue);
      sendJson(response, 200, { queue, state: query.state, scanLimit: ctx.scanLimit, ...(await findJobs(ctx.source, queue, query, depthOf(stats, query.state), ctx.scanLimit)) });
    } else if (route === 'history') {
      if (!ctx.source.history) throw new HttpError(404, 'no_capability', 'this dashboard has no metrics history');
      const query = historyQuery(params);
      sendJson(response, 200, historyAnswer(queue, query, await ctx.source.history(queue, query)));
    } else if (route === 'schedules') {
      if (!ctx.source.schedules) throw new HttpError(404, 'no_capability', 'this dashboard has no schedules');
      const schedules = (await ctx.source.schedules(queue)).map(shownSchedule);
      sendJson(response, 200, { queue, schedules });
    } else {
      const jobId = decodePathPart(id as string, 'id');
      assertId(jobId);
      const job = await ctx.source.getJob(queue, jobId);
      if (!job) throw new HttpError(404, 'no_job', `no job ${jobId} in ${queue} (or its record has expired)`);
      sendJson(response, 200, { queue, job: jobDetail(job), ...(await timelineOf(ctx, queue, jobId)), ...(await whyOf(ctx, queue, jobId)), ...(await trailOf(ctx.source, ctx.log, queue, jobId)) });
    }
    return true;
  }
  if (method !== 'POST') throw new HttpError(405, 'method', `${action} takes a POST`);
  const jobId = id === undefined ? undefined : decodePathPart(id, 'id');
  const body = await readJsonBody(request);
  const target = auditTargetOf(jobId ?? (typeof body.workerId === 'string' ? body.workerId : undefined), body);
  const expected = typeof body.expected === 'number' ? { count: body.expected } : {};
  const who = await check({ action, queue, ...(target.id !== undefined && { id: target.id }), ...(target.kind !== undefined && { kind: target.kind }), ...expected });
  sendJson(response, 200, await audited(ctx, { queue, action: auditActionOf(action, body), who, target }, () => act(ctx, queue, action, jobId, body, who)));
  return true;
}

async function act(ctx: ApiContext, queue: string, action: string, id: string | undefined, body: Record<string, unknown>, who: DashboardCaller): Promise<unknown> {
  const { source, log } = ctx;
  switch (action) {
    case 'retry': {
      assertId(id as string);
      const outcome = await source.retry(queue, id as string);
      if (outcome === 'not_found') throw new HttpError(404, 'no_job', `no job ${id} in ${queue} (or its record has expired)`);
      if (outcome !== true) throw new HttpError(409, 'conflict', `job ${id} is ${outcome} now, not failed: nothing was redriven (it was redriven or finished meanwhile)`);
      log.info({ queue, id, action }, 'dashboard action');
      return { id, retried: true, count: 1 };
    }
    case 'cancel': {
      assertId(id as string);
      const outcome = await source.cancel(queue, id as string);
      if (outcome.cancelled) {
        log.info({ queue, id, action }, 'dashboard action');
        return { id, cancelled: true, count: 1 };
      }
      if (outcome.status === 'not_found') throw new HttpError(404, 'no_job', `no job ${id} in ${queue} (or its record has expired)`);
      throw new HttpError(409, 'conflict', `job ${id} is ${outcome.status} now: only a job that has not finished can be cancelled, so nothing was changed`);
    }
    case 'redrive-failed': {
      // The count the operator saw: jobs that failed since are not redriven unseen.
      const expected = body.expected;
      if (typeof expected !== 'number' || !Number.isSafeInteger(expected) || expected < 1) throw new HttpError(400, 'bad_body', 'expected must be the number of failed jobs to redrive (1 or more)');
      const redriven = await source.retryFailed(queue, Math.min(expected, ctx.redriveLimit));
      log.info({ queue, action, redriven }, 'dashboard action');
      return { queue, redriven, limit: ctx.redriveLimit, count: redriven };
    }
    case 'purge': {
      if (body.confirm !== queue) throw new HttpError(400, 'confirm', `type the queue's name (${queue}) to purge it`);
      const deletedKeys = await source.purge(queue);
      ctx.history.keepOnly([]);
      log.warn({ queue, action, deletedKeys }, 'dashboard action');
      // count: the one queue purged (its jobs went with its keys, uncounted).
      return { queue, deletedKeys, count: 1 };
    }
    case 'pause':
    case 'resume': {
      const run = action === 'pause' ? source.pause : source.resume;
      if (!run) throw new HttpError(404, 'no_capability', `this dashboard cannot ${action} queues`);
      const kind = body.kind;
      if (kind !== undefined && (typeof kind !== 'string' || !KIND_NAME_PATTERN.test(kind))) {
        throw new HttpError(400, 'bad_body', 'kind must be a kind name: a letter, then up to 63 letters, digits, "_", "." or "-"');
      }
      await run.call(source, queue, { ...(kind !== undefined && { kind }), ...(action === 'pause' && { by: pausedBy(who) }) });
      log.info({ queue, ...(kind !== undefined && { kind }), action }, 'dashboard action');
      return { queue, ...(kind !== undefined && { kind }), paused: action === 'pause', count: 1 };
    }
    case 'quiet-workers':
    case 'resume-workers': {
      const run = action === 'quiet-workers' ? source.quietWorkers : source.resumeWorkers;
      if (!run) throw new HttpError(404, 'no_capability', 'this dashboard cannot tell workers');
      const workerId = body.workerId;
      if (workerId !== undefined && (typeof workerId !== 'string' || !/^[\x21-\x7e]{1,128}$/.test(workerId))) throw new HttpError(400, 'bad_body', 'workerId must be a worker id: 1 to 128 printable characters without spaces');
      const { told } = await run.call(source, queue, workerId === undefined ? {} : { workerId });
      log.info({ queue, action, told: told.length }, 'dashboard action');
      // count: the workers told.
      return { queue, told, count: told.length };
    }
    case 'promote':
    case 'priority':
    case 'delete': {
      const answer = await jobAction(source, queue, action, id, body);
      log.info({ queue, id, action }, 'dashboard action');
      return answer;
    }
    case 'bulk': {
      const depth = async (name: string, state: ListState) => depthOf(await source.stats(name), state);
      const answer = await bulk({ source, scanLimit: ctx.scanLimit, toQuery: (params) => jobQuery(params, Number.MAX_SAFE_INTEGER), depth }, queue, body);
      log.info({ queue, action, bulk: answer.action, matched: answer.matched, done: answer.done }, 'dashboard action');
      return answer;
    }
  }
  throw new HttpError(404, 'not_found', 'no such action');
}

/** Who paused, as core keeps it (printable ASCII, at most 64 characters): the dashboard and the caller's label. */
function pausedBy(who: DashboardCaller): string {
  return `dashboard ${who.label}`.replace(/[^\x20-\x7e]/g, '?').slice(0, 64);
}

/** The answer for an error a route threw: typed errors say what was wrong, others are logged and kept vague. */
export function httpErrorOf(raw: unknown, log: Logger): HttpError {
  if (raw instanceof HttpError) return raw;
  // Typed first: a raw ioredis error carries its command's arguments, and must reach no log.
  const error = toJobsError(raw);
  if (isJobsError(error, 'JOBS_INVALID_ARGUMENT')) return new HttpError(400, 'invalid_argument', error.message);
  if (isJobsError(error, 'JOBS_REDIS_UNAVAILABLE')) return new HttpError(503, 'redis_unavailable', 'Redis did not answer; try again shortly');
  // The dashboard's own Redis user: an operator's fix, said without the reply's details.
  if (isJobsError(error, 'JOBS_REDIS_AUTH')) return new HttpError(503, 'redis_auth', "Redis refused the dashboard's credentials; see its logs");
  log.error({ err: error }, 'dashboard request failed');
  return new HttpError(500, 'internal', 'the dashboard could not answer; see its logs');
}
