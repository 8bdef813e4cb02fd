import { isJobsError, type Kinds, type RedisClient, type ScheduleRecord, type ScheduleSpec } from '@jobs/core';
import { renderPairs, renderTable } from '../table.ts';
import { closestNames } from './closest-names.ts';
import type { AdminResult } from './run-admin.ts';
import { scheduleAdmin } from './schedules-admin.ts';

/** A schedule as `jobsctl schedules upsert` reads it from its flags (checked by the queue's kinds when run). */
export interface ScheduleFlags {
  readonly id: string;
  readonly kind: string;
  readonly payload: unknown;
  readonly cron?: string;
  readonly tz?: string;
  readonly every?: number;
  readonly startAt?: number;
  readonly endAt?: number;
  readonly limit?: number;
  /** The job options, as parsed from `--options` JSON. */
  readonly options?: unknown;
}

/** A parsed `jobsctl schedules` command. */
export type SchedulesCommand =
  | { readonly name: 'schedules'; readonly action: 'list'; readonly queue: string }
  | { readonly name: 'schedules'; readonly action: 'show' | 'pause' | 'resume' | 'remove'; readonly queue: string; readonly id: string }
  | { readonly name: 'schedules'; readonly action: 'upsert'; readonly queue: string; readonly kinds: Kinds<unknown>; readonly spec: ScheduleFlags };

/** The flag of `schedules upsert` that sets each field of a spec, for its errors. */
const FLAGS: Record<string, string> = {
  id: '--id',
  kind: '--kind',
  payload: '--payload',
  cron: '--cron',
  tz: '--tz',
  every: '--every',
  startAt: '--start-at',
  endAt: '--end-at',
  limit: '--limit',
  options: '--options',
};

const iso = (ms: number | null | undefined): string => (ms ? new Date(ms).toISOString() : '-');

/** An interval in the largest unit that says it exactly: 30s, 5m, 2h, 1d, or ms. */
export function intervalText(ms: number): string {
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1_000]] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

/** When a schedule runs, in one cell: `cron 0 8 * * * Europe/Paris` (UTC when no zone) or `every 30s`. */
function timing(schedule: ScheduleRecord): string {
  if (schedule.cron !== undefined) return `cron ${schedule.cron} ${schedule.tz ?? 'UTC'}`;
  return `every ${intervalText(schedule.every ?? 0)}`;
}

function runs(schedule: ScheduleRecord): string {
  return schedule.limit === undefined ? String(schedule.runs) : `${schedule.runs}/${schedule.limit}`;
}

/** Says there is no schedule `id`, with the ones there are (the closest first). */
async function noSuchSchedule(client: RedisClient, queue: string, id: string): Promise<AdminResult> {
  const ids = (await scheduleAdmin.list(client, queue)).map((schedule) => schedule.id);
  const { ordered, suggestion } = closestNames(id, ids);
  const listed = ordered.length > 0 ? `\nits schedules: ${ordered.join(', ')}` : `\nqueue ${queue} has no schedules`;
  return { code: 1, text: `no schedule "${id}" in queue ${queue}${suggestion ? `; did you mean "${suggestion}"?` : ''}${listed}`, json: { error: 'not_found', queue, id, schedules: ordered } };
}

/** An upsert refused by the queue's kinds or the schedule's rules: the flag at fault and why (exit code 2, nothing written). */
function refusedUpsert(error: unknown): AdminResult | undefined {
  if (!isJobsError(error) || !['JOBS_INVALID_ARGUMENT', 'JOBS_VALIDATION', 'JOBS_UNKNOWN_KIND'].includes(error.code)) return undefined;
  const field = error.field ?? '';
  const flag = FLAGS[field.split(/[.[]/)[0] as string] ?? field;
  const why = error.message.startsWith(`invalid ${field}: `) ? error.message.slice(`invalid ${field}: `.length) : error.message;
  // A job option is named inside --options' JSON: `--options: priority: ...`.
  const option = field.startsWith('options.') ? `${field.slice('options.'.length)}: ` : '';
  return {
    code: 2,
    text: `jobsctl: schedules upsert: ${flag ? `${flag}: ` : ''}${option}${why}\nRun jobsctl schedules upsert --help for the options.`,
    json: { error: error.code, field: field || null, flag: flag || null, message: error.message },
  };
}

/** Runs one `jobsctl schedules` command on a queue (partition 0 of a partitioned queue). */
export async function runSchedulesCommand(command: SchedulesCommand, client: RedisClient): Promise<AdminResult> {
  const { queue } = command;
  switch (command.action) {
    case 'list': {
      const schedules = await scheduleAdmin.list(client, queue);
      if (schedules.length === 0) return { code: 0, text: `no schedules in ${queue}`, json: [] };
      const rows = schedules.map((s) => [s.id, s.kind, timing(s), s.status, iso(s.nextRunAt), runs(s), s.lastJobId ?? '-']);
      return { code: 0, text: renderTable(['ID', 'KIND', 'TIMING', 'STATUS', 'NEXT RUN', 'RUNS', 'LAST JOB'], rows), json: schedules };
    }
    case 'show': {
      const schedule = await scheduleAdmin.get(client, queue, command.id);
      if (!schedule) return noSuchSchedule(client, queue, command.id);
      const pairs: [string, string | number][] = [
        ['id', schedule.id],
        ['kind', schedule.kind],
        ['status', schedule.status],
        ['timing', timing(schedule)],
        ['start_at', iso(schedule.startAt)],
        ['end_at', iso(schedule.endAt)],
        ['runs', runs(schedule)],
        ['next_run', iso(schedule.nextRunAt)],
        ['last_run', iso(schedule.lastRunAt)],
        ['last_job', schedule.lastJobId ?? '-'],
        ['job_options', Object.keys(schedule.options).length === 0 ? '-' : JSON.stringify(schedule.options)],
        ['created_at', iso(schedule.createdAt)],
        ['updated_at', iso(schedule.updatedAt)],
        ['payload', JSON.stringify(schedule.payload)],
      ];
      return { code: 0, text: renderPairs(pairs), json: schedule };
    }
    case 'upsert': {
      try {
        const result = await scheduleAdmin.upsert(client, queue, command.kinds, command.spec as unknown as ScheduleSpec<unknown>);
        const next = result.nextRunAt === null ? 'no next run (paused, or none left)' : `next run ${iso(result.nextRunAt)}`;
        return { code: 0, text: `${result.created ? 'created' : 'updated'} schedule ${result.id} of ${queue}: ${next}`, json: { queue, ...result } };
      } catch (error) {
        const refused = refusedUpsert(error);
        if (refused) return refused;
        throw error;
      }
    }
    case 'pause':
    case 'resume':
    case 'remove': {
      const schedule = await scheduleAdmin.get(client, queue, command.id);
      if (!schedule) return noSuchSchedule(client, queue, command.id);
      const json = (changed: boolean, status: string): unknown => ({ queue, id: command.id, changed, status });
      if (command.action === 'remove') {
        const removed = await scheduleAdmin.remove(client, queue, command.id);
        return { code: 0, text: `removed schedule ${command.id} of ${queue} (the jobs it enqueued stay)`, json: json(removed, 'removed') };
      }
      if (schedule.status === 'done') {
        return { code: 1, text: `schedule ${command.id} of ${queue} is done (its run limit or end reached): upsert it to run again`, json: { error: 'done', queue, id: command.id, status: 'done' } };
      }
      if (command.action === 'pause') {
        const paused = await scheduleAdmin.pause(client, queue, command.id);
        return { code: 0, text: paused ? `paused schedule ${command.id} of ${queue}` : `schedule ${command.id} of ${queue} was already paused`, json: json(paused, 'paused') };
      }
      const resumed = await scheduleAdmin.resume(client, queue, command.id);
      const after = await scheduleAdmin.get(client, queue, command.id);
      const next = after?.nextRunAt ? `: next run ${iso(after.nextRunAt)}` : '';
      return { code: 0, text: resumed ? `resumed schedule ${command.id} of ${queue}${next}` : `schedule ${command.id} of ${queue} was not paused${next}`, json: { ...(json(resumed, after?.status ?? 'active') as object), nextRunAt: after?.nextRunAt ?? null } };
    }
  }
}
