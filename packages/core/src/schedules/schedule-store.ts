import type { QueueKeys } from '../keys.ts';
import { SCHEDULE_DUE_STRIDE } from '../generated/constants.ts';
import { scheduleDueScript } from '../generated/schedule-due.ts';
import { scheduleFireScript } from '../generated/schedule-fire.ts';
import { withRedisErrors, type RedisClient } from '../redis-connection.ts';
import { SharedSubscriber } from '../shared-subscriber.ts';
import { sendScript } from '../script-sender.ts';
import type { ScheduleTiming } from './schedule-timing.ts';

/** An active schedule's next tick, as a runner reads it. */
export interface DueSchedule {
  readonly id: string;
  /** The revision read: a fire made with an older one changes nothing. */
  readonly revision: string;
  /** The tick: the next run (ms, Redis clock). */
  readonly nextRunMs: number;
  readonly timing: ScheduleTiming;
}

/** What a fire did (see scripts/schedule-fire.lua). */
export interface FireResult {
  /** `fired`: the tick's job is enqueued; `stale`: read again; `early`: not due yet; `behind`: compute the following run from `nowMs`. */
  readonly outcome: 'fired' | 'stale' | 'early' | 'behind';
  /** Redis time when the script ran. */
  readonly nowMs: number;
  /** The tick's job, when fired. */
  readonly jobId: string | undefined;
}

/** What a {@link ScheduleRunner} reads and writes: Redis in production, an in-memory double in unit tests. */
export interface ScheduleStore {
  /** Redis time, and the active schedules with the earliest next runs (at most `max`), earliest first. */
  due(max: number): Promise<{ nowMs: number; schedules: DueSchedule[] }>;
  /**
   * Runs `schedule`'s tick if it is still the one read and due; `followingMs`: the run after it,
   * or null for none. `minGapMs`: for a catch-up, the least time from the fire (Redis time) to
   * `followingMs`, else 0 (see scripts/schedule-fire.lua); a following run closer than that is `behind`.
   */
  fire(schedule: DueSchedule, followingMs: number | null, minGapMs?: number): Promise<FireResult>;
  /** Calls `onWake` when a schedule is created, changed or resumed (and after a reconnect); returns a stop function. */
  watch?(onWake: () => void, onError: (error: unknown) => void): () => Promise<void>;
}

/** Hears channels on a pub/sub connection it shares (see SharedSubscriber in shared-subscriber.ts). */
export interface ChannelListener {
  /** Hears `channels`; `onReady` runs each time the connection is ready (after a reconnect too). */
  listen(channels: readonly string[], onMessage: (channel: string, message: string) => void, onReady?: () => void): Promise<void>;
}

/** The {@link ScheduleStore} of one queue in Redis. */
export class RedisScheduleStore implements ScheduleStore {
  readonly #client: RedisClient;
  readonly #keys: QueueKeys;
  readonly #logMaxLen: number;
  readonly #subscriber: ChannelListener | undefined;
  readonly #metrics: '0' | '1';

  /**
   * `eventLogMaxLen`: the queue's event log cap, 0 when it is off (the jobs a tick makes are
   * logged 'enqueued'). `subscriber`: a pub/sub connection shared with other listeners to hear
   * the wakes on (a worker's, a reclaimer daemon's); without one, `watch` opens its own.
   * `metricsHistory`: the jobs a tick makes are counted in the queue's metrics history.
   */
  constructor(client: RedisClient, keys: QueueKeys, eventLogMaxLen = 0, subscriber?: ChannelListener, metricsHistory = false) {
    this.#client = client;
    this.#keys = keys;
    this.#logMaxLen = eventLogMaxLen;
    this.#subscriber = subscriber;
    this.#metrics = metricsHistory ? '1' : '0';
  }

  async due(max: number): Promise<{ nowMs: number; schedules: DueSchedule[] }> {
    const argv = scheduleDueScript.argv({ due: this.#keys.schedulesDue }, { schedulePrefix: this.#keys.schedulePrefix, max });
    const reply = await withRedisErrors(() => sendScript(this.#client, scheduleDueScript, argv));
    const schedules: DueSchedule[] = [];
    for (let i = 1; i + SCHEDULE_DUE_STRIDE <= reply.length; i += SCHEDULE_DUE_STRIDE) {
      const [id, revision, next, cron, tz, every, start, end] = reply.slice(i, i + SCHEDULE_DUE_STRIDE) as string[];
      schedules.push({
        id: id as string,
        revision: revision as string,
        nextRunMs: Number(next),
        timing: { cron: cron ?? '', tz: tz ?? '', everyMs: Number(every || 0), startAtMs: Number(start || 0), endAtMs: Number(end || 0) },
      });
    }
    return { nowMs: Number(reply[0]), schedules };
  }

  async fire(schedule: DueSchedule, followingMs: number | null, minGapMs = 0): Promise<FireResult> {
    const k = this.#keys;
    const argv = scheduleFireScript.argv(
      { schedule: k.schedule(schedule.id), due: k.schedulesDue, pending: k.pending, stats: k.stats, log: k.log },
      { jobPrefix: k.jobPrefix, revision: schedule.revision, tick: schedule.nextRunMs, followingMs: followingMs ?? -1, logMaxLen: this.#logMaxLen, minGapMs, prefix: k.prefix, metrics: this.#metrics },
    );
    const [outcome, now, jobId] = await withRedisErrors(() => sendScript(this.#client, scheduleFireScript, argv, false));
    return { outcome, nowMs: Number(now), jobId: jobId === '' ? undefined : jobId };
  }

  watch(onWake: () => void, onError: (error: unknown) => void): () => Promise<void> {
    // Without a shared connection, one of its own, closed with the watch.
    let own: SharedSubscriber | undefined;
    const subscriber: ChannelListener = this.#subscriber ?? (own = new SharedSubscriber(this.#client));
    let stopped = false;
    // After a reconnect too: a wake may have been missed.
    const wake = (): void => {
      if (!stopped) onWake();
    };
    subscriber.listen([this.#keys.schedulesWake], wake, wake).catch((error: unknown) => {
      if (!stopped) onError(error);
    });
    return async () => {
      stopped = true;
      await own?.close();
    };
  }
}
