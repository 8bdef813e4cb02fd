import { readFileSync } from 'node:fs';
import { assertScheduleId } from '@jobs/core';
import type { Command } from 'commander';
import { parseWholeNumber, UsageError } from '../usage-error.ts';
import { check, kindsOption, queueOption, type ProgramContext } from './admin-options.ts';
import { loadKinds } from './kinds-module.ts';
import type { ScheduleFlags } from './run-schedules.ts';

const UPSERT_HELP = `
The payload is checked against its kind's schema at upsert, as an upsert from code is: the
schemas live in your code, not in Redis, so upsert needs --kinds FILE, the module your application
defines the queue's kinds in (compiled JavaScript: it is imported, so keep it free of side
effects). Without --kinds it refuses and writes nothing: upsert from code instead
(producer.schedules.upsert). The other schedules commands need no kinds.

Upserting an id that exists replaces that schedule atomically: an unchanged timing keeps its next
run; a changed one runs a tick of the old timing that is already due, then the new timing's first
tick after now. A paused schedule stays paused. Ticks run on Redis time, one job per tick however
many workers and daemons keep the schedules; after downtime the first missed tick runs once and
the others are skipped.

Examples:
  jobsctl schedules upsert -q mail --kinds dist/kinds.js --id digest --kind email \\
    --payload '{"recipient":"team@example.com"}' --cron '0 8 * * *' --tz Europe/Paris
  jobsctl schedules upsert -q feeds --kinds dist/kinds.js --id poll --kind fetch --every 30000 --limit 100 \
    --options '{"priority":5,"group":"feeds","ttlMs":60000}'`;

const LIST_HELP = `
Each schedule: its id, kind, timing (a cron pattern and its time zone, or an interval), status
(active, paused, or done once its limit or end is reached), next run (ISO 8601; epoch ms with
--json), runs so far (of its limit) and the id of the last job it enqueued. A partitioned queue
keeps its schedules in partition 0.`;

/** A time flag: ISO 8601 (2026-03-01T08:00:00Z) or epoch milliseconds. */
function parseTime(flag: string, raw: string): number {
  const ms = /^\d+$/.test(raw) ? Number(raw) : /^\d{4}-\d\d-\d\d/.test(raw) ? Date.parse(raw) : Number.NaN;
  if (!Number.isSafeInteger(ms) || ms <= 0) throw new UsageError(`${flag} must be a time in ISO 8601 (2026-03-01T08:00:00Z) or epoch ms, got ${JSON.stringify(raw)}`);
  return ms;
}

/** The payload from --payload (JSON text) or --payload-file (a JSON file); {} when neither is given. */
function parsePayload(text: string | undefined, file: string | undefined): unknown {
  if (text !== undefined && file !== undefined) throw new UsageError('give --payload or --payload-file, not both');
  let json = text ?? '{}';
  const flag = file === undefined ? '--payload' : '--payload-file';
  if (file !== undefined) {
    try {
      json = readFileSync(file, 'utf8');
    } catch (error) {
      throw new UsageError(`--payload-file: cannot read ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
    }
  }
  try {
    return JSON.parse(json) as unknown;
  } catch (error) {
    throw new UsageError(`${flag} must be JSON: ${(error as Error).message}`);
  }
}

interface UpsertFlags {
  queue?: string;
  kinds?: string;
  id?: string;
  kind?: string;
  payload?: string;
  payloadFile?: string;
  cron?: string;
  tz?: string;
  every?: string;
  startAt?: string;
  endAt?: string;
  limit?: string;
  options?: string;
}

/** The job options of `--options`, as JSON (checked by the queue when upserted). */
function parseJobOptions(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`--options must be JSON: ${(error as Error).message}`);
  }
}

/** The schedule the upsert flags describe, checked as far as it can be without the queue's kinds. */
function scheduleFlags(flags: UpsertFlags): ScheduleFlags {
  if (flags.id === undefined) throw new UsageError('schedules upsert needs --id ID');
  check(() => assertScheduleId(flags.id, '--id'));
  if (flags.kind === undefined) throw new UsageError('schedules upsert needs --kind KIND');
  if ((flags.cron === undefined) === (flags.every === undefined)) throw new UsageError('schedules upsert needs --cron PATTERN or --every MS (one of them)');
  if (flags.tz !== undefined && flags.cron === undefined) throw new UsageError('--tz applies to --cron only');
  return {
    id: flags.id,
    kind: flags.kind,
    payload: parsePayload(flags.payload, flags.payloadFile),
    ...(flags.cron !== undefined && { cron: flags.cron }),
    ...(flags.tz !== undefined && { tz: flags.tz }),
    ...(flags.every !== undefined && { every: parseWholeNumber('--every', flags.every, 0, 1, Number.MAX_SAFE_INTEGER) }),
    ...(flags.startAt !== undefined && { startAt: parseTime('--start-at', flags.startAt) }),
    ...(flags.endAt !== undefined && { endAt: parseTime('--end-at', flags.endAt) }),
    ...(flags.limit !== undefined && { limit: parseWholeNumber('--limit', flags.limit, 0, 1, 1_000_000_000) }),
    ...(flags.options !== undefined && { options: parseJobOptions(flags.options) }),
  };
}

/** Adds `jobsctl schedules list|show|upsert|pause|resume|remove` to `program`. */
export function addSchedulesCommands(program: Command, { take, needQueue, globals }: ProgramContext): void {
  const schedules = program
    .command('schedules')
    .description("a queue's schedules (cron or interval jobs): list, show, upsert, pause, resume, remove")
    .addHelpText('after', `${LIST_HELP}\nupsert checks the payload against the queue's kinds: it needs --kinds FILE (see jobsctl schedules upsert --help).`);

  const scheduleId = (id: string): string => {
    check(() => assertScheduleId(id));
    return id;
  };

  schedules
    .command('list')
    .description('every schedule of the queue, with its timing, status and next run')
    .addOption(queueOption())
    .addHelpText('after', LIST_HELP)
    .action((flags: { queue?: string }, command: Command) => take({ name: 'schedules', action: 'list', queue: needQueue('schedules list', flags.queue) }, globals(command)));

  schedules
    .command('show')
    .description('one schedule: every field, its payload, last run and job (times in ISO 8601, or epoch ms with --json)')
    .argument('<id>', 'the schedule id')
    .addOption(queueOption())
    .action((id: string, flags: { queue?: string }, command: Command) => take({ name: 'schedules', action: 'show', queue: needQueue('schedules show', flags.queue), id: scheduleId(id) }, globals(command)));

  schedules
    .command('upsert')
    .description("create a schedule, or replace the one with its id; the payload is checked against its kind's schema (needs --kinds)")
    .addOption(queueOption())
    .addOption(kindsOption('to check the kind and payload against (required)'))
    .option('--id <id>', 'the schedule id: 1 to 64 letters, digits, ".", "_" or "-"')
    .option('--kind <kind>', 'the kind of the jobs it enqueues')
    .option('--payload <json>', 'the payload of each job, as JSON (default {})')
    .option('--payload-file <file>', 'the payload, from a JSON file')
    .option('--cron <pattern>', 'a cron pattern: 5 fields (minute first), or 6 with seconds first')
    .option('--tz <zone>', 'the IANA time zone the pattern is read in, e.g. Europe/Paris (default UTC)')
    .option('--every <ms>', 'a fixed interval in ms, at least 1000 (instead of --cron)')
    .option('--start-at <time>', 'no run before this time (ISO 8601 or epoch ms); an interval counts from it')
    .option('--end-at <time>', 'no run at or after this time (ISO 8601 or epoch ms)')
    .option('--limit <n>', 'the most runs; then the schedule is done')
    .option('--options <json>', 'the job options of each tick\'s job, as JSON: priority, group, maxAttempts, visibilityMs, ttlMs')
    .addHelpText('after', UPSERT_HELP)
    .action(async (flags: UpsertFlags, command: Command) => {
      const queue = needQueue('schedules upsert', flags.queue);
      const spec = scheduleFlags(flags);
      if (flags.kinds === undefined) {
        throw new UsageError(
          "schedules upsert needs --kinds FILE: the payload is checked against its kind's schema, which lives in your code, not in Redis. " +
            'Give the module that exports the queue\'s kinds (defineKinds), or upsert from code (producer.schedules.upsert). Nothing was written',
        );
      }
      take({ name: 'schedules', action: 'upsert', queue, kinds: await loadKinds(flags.kinds), spec }, globals(command));
    });

  for (const [action, description] of [
    ['pause', 'pause a schedule: no tick runs until it is resumed'],
    ['resume', 'resume a paused schedule at its first tick after now (the ticks missed meanwhile are skipped)'],
    ['remove', 'remove a schedule (the jobs it enqueued stay)'],
  ] as const) {
    schedules
      .command(action)
      .description(description)
      .argument('<id>', 'the schedule id')
      .addOption(queueOption())
      .action((id: string, flags: { queue?: string }, command: Command) => take({ name: 'schedules', action, queue: needQueue(`schedules ${action}`, flags.queue), id: scheduleId(id) }, globals(command)));
  }
}
