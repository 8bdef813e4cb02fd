import { JOBS_ERROR_CODES, JobsError } from '../errors.ts';
import type { QueueContext } from '../commands/queue-context.ts';
import { scheduleListScript } from '../generated/schedule-list.ts';
import { schedulePauseScript } from '../generated/schedule-pause.ts';
import { scheduleRemoveScript } from '../generated/schedule-remove.ts';
import { scheduleResumeScript } from '../generated/schedule-resume.ts';
import { scheduleUpsertScript } from '../generated/schedule-upsert.ts';
import type { LuaScript } from '../lua-script.ts';
import { assertOptionKeys } from '../option-keys.ts';
import { assertWholeNumber } from '../whole-number.ts';
import { parseScheduleRecord, type ScheduleRecord } from './schedule-record.ts';
import { assertScheduleId, prepareSchedule, type ScheduleSpec } from './schedule-spec.ts';
import { MIN_EVERY_MS, nextRunAfter, timingText, type ScheduleTiming } from './schedule-timing.ts';

/** What a queue gives its {@link Schedules}: its keys, its kinds, the way it sends its scripts and its event log's cap. */
export type ScheduleHost<P> = Pick<QueueContext<P>, 'keys' | 'kinds' | 'scripts' | 'logMaxLen' | 'metrics'>;

/** Options of {@link Schedules}. */
export interface SchedulesOptions {
  /** The smallest interval allowed (ms). Default 1000; lower only in tests. */
  minEveryMs?: number;
}

/** What {@link Schedules.upsert} did. */
export interface UpsertScheduleResult {
  readonly id: string;
  /** False when a schedule with this id was replaced. */
  readonly created: boolean;
  /** The next tick (ms since the epoch, Redis clock), or null when paused or done. */
  readonly nextRunAt: number | null;
}

/** Times a computed next run may be overtaken by Redis time before the upsert gives up (each round trip is ms; ticks are seconds apart). */
const ATTEMPTS = 5;

/**
 * A queue's schedules: each enqueues a job of its kind and payload at every tick of a cron
 * pattern (in a time zone) or of a fixed interval. Every change is one atomic script; a
 * {@link ScheduleRunner} (run by workers and the reclaimer daemon) fires the ticks, one job per
 * tick however many run. After downtime a schedule runs its first missed tick once, at once,
 * and skips the others, up to the first tick at least one period after the catch-up; a
 * resumed schedule runs at its first tick after the resume.
 *
 * @example
 * ```ts
 * await queue.schedules.upsert({ id: 'digest', kind: 'email', payload: { recipient: 'team@example.com' }, cron: '0 8 * * *', tz: 'Europe/Paris' });
 * await queue.schedules.upsert({ id: 'poll-feed', kind: 'webhook', payload: { url: 'https://example.com/feed' }, every: 30_000 });
 * for (const s of await queue.schedules.list()) console.log(s.id, new Date(s.nextRunAt ?? 0));
 * ```
 */
export class Schedules<P> {
  readonly #host: ScheduleHost<P>;
  readonly #minEveryMs: number;

  constructor(host: ScheduleHost<P>, options: SchedulesOptions = {}) {
    this.#host = host;
    assertOptionKeys<SchedulesOptions>('options', options, { minEveryMs: true });
    this.#minEveryMs = assertWholeNumber('minEveryMs', options.minEveryMs ?? MIN_EVERY_MS, 1, 86_400_000);
  }

  #run<K, A, R>(script: LuaScript<K, A, R>, keys: K, args: A): Promise<R> {
    return this.#host.scripts.run(script, script.argv(keys, args), false);
  }

  /**
   * Creates the schedule, or replaces the one with the same id, atomically. The kind and payload
   * are checked against the kind's schema, the pattern, time zone and interval too: a bad one
   * throws a `JobsError` (`JOBS_UNKNOWN_KIND`, `JOBS_VALIDATION`, or `JOBS_INVALID_ARGUMENT` with
   * field `cron`, `tz`, `every`, `options.priority`...) and nothing is written. Each tick's job is
   * enqueued as `enqueue` enqueues one, with the schedule's job options (`ScheduleJobOptions`). When the timing is unchanged the next
   * run stays; when it changed, a tick of the old timing already due runs first, and the next run
   * is the new timing's first after now. A paused schedule stays paused.
   */
  async upsert(spec: ScheduleSpec<P>): Promise<UpsertScheduleResult> {
    const prepared = prepareSchedule(spec, this.#host.kinds, this.#minEveryMs);
    const k = this.#host.keys;
    let { nowMs } = await this.#read(prepared.id);
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      const first = nextRunAfter(prepared.timing, nowMs, nowMs);
      if (first === null && attempt === 0 && prepared.timing.endAtMs === 0 && prepared.timing.cron !== '') {
        throw new JobsError(JOBS_ERROR_CODES.INVALID_ARGUMENT, `cron pattern ${JSON.stringify(prepared.timing.cron)} never runs`, { field: 'cron' });
      }
      const keys = { schedule: k.schedule(prepared.id), due: k.schedulesDue, schedules: k.schedules, pending: k.pending, stats: k.stats, log: k.log };
      const args = { jobPrefix: k.jobPrefix, id: prepared.id, timing: timingText(prepared.timing), firstMs: first ?? -1, wakeChannel: k.schedulesWake, logMaxLen: this.#host.logMaxLen, prefix: k.prefix, metrics: this.#host.metrics, definition: prepared.fields };
      const [outcome, now, , next] = await this.#run(scheduleUpsertScript, keys, args);
      if (outcome !== 'retry') return { id: prepared.id, created: outcome === 'created', nextRunAt: Number(next) >= 0 ? Number(next) : null };
      nowMs = Number(now);
    }
    throw new JobsError(JOBS_ERROR_CODES.TIMEOUT, `schedule ${prepared.id}: its next run kept passing before it could be written`, { field: 'id' });
  }

  /** Redis time (from the queue's own node: in a cluster, nodes' clocks may differ) and schedule `id`, read in one step. */
  async #read(id: string): Promise<{ nowMs: number; record: ScheduleRecord | null }> {
    const k = this.#host.keys;
    const reply = await this.#run(scheduleListScript, { schedules: k.schedules }, { schedulePrefix: k.schedulePrefix, offset: 0, limit: 1, id });
    const fields = reply[1];
    return { nowMs: Number(reply[0]), record: fields ? parseScheduleRecord(fields) : null };
  }

  /** The schedule with id `id`, or null. */
  async get(id: string): Promise<ScheduleRecord | null> {
    assertScheduleId(id);
    return (await this.#read(id)).record;
  }

  /** One page of the schedules in id order, each with its status and next run. */
  async list(options: { offset?: number; limit?: number } = {}): Promise<ScheduleRecord[]> {
    assertOptionKeys<{ offset?: number; limit?: number }>('options', options, { offset: true, limit: true });
    const offset = assertWholeNumber('offset', options.offset ?? 0, 0, Number.MAX_SAFE_INTEGER);
    const limit = assertWholeNumber('limit', options.limit ?? 100, 1, 1_000);
    const k = this.#host.keys;
    const reply = await this.#run(scheduleListScript, { schedules: k.schedules }, { schedulePrefix: k.schedulePrefix, offset, limit, id: '' });
    return (reply.slice(1) as string[][]).map((fields) => parseScheduleRecord(fields));
  }

  /** Pauses an active schedule: no tick runs until {@link resume}. True when it was active. */
  async pause(id: string): Promise<boolean> {
    assertScheduleId(id);
    const [changed] = await this.#run(schedulePauseScript, { schedule: this.#host.keys.schedule(id), due: this.#host.keys.schedulesDue }, { id });
    return Number(changed) === 1;
  }

  /**
   * Resumes a paused schedule at its first tick after now: the ticks missed while paused are
   * skipped, none runs at once. True when it was paused.
   */
  async resume(id: string): Promise<boolean> {
    assertScheduleId(id);
    const k = this.#host.keys;
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      const read = await this.#read(id);
      const record = read.record;
      if (!record || record.status !== 'paused') return false;
      const timing: ScheduleTiming = { cron: record.cron ?? '', tz: record.tz ?? '', everyMs: record.every ?? 0, startAtMs: record.startAt ?? 0, endAtMs: record.endAt ?? 0 };
      const first = nextRunAfter(timing, read.nowMs, read.nowMs);
      const [outcome] = await this.#run(scheduleResumeScript, { schedule: k.schedule(id), due: k.schedulesDue, stats: k.stats }, { id, firstMs: first ?? -1, wakeChannel: k.schedulesWake, revision: record.revision });
      if (outcome !== 'retry') return outcome === 'resumed';
    }
    throw new JobsError(JOBS_ERROR_CODES.TIMEOUT, `schedule ${id}: its next run kept passing before it could be written`, { field: 'id' });
  }

  /** Removes a schedule (the jobs it enqueued stay). True when it existed. */
  async remove(id: string): Promise<boolean> {
    assertScheduleId(id);
    const k = this.#host.keys;
    return Number(await this.#run(scheduleRemoveScript, { schedule: k.schedule(id), due: k.schedulesDue, schedules: k.schedules }, { id })) === 1;
  }
}
