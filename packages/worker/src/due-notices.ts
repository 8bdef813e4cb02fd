import type { Partition } from '@jobs/core';
import type { SharedSubscriber } from '@jobs/core/internal';

/** What a notice needs of a queue (or partition): its wake channel and its promotion of due jobs. */
type NoticedQueue = Pick<Partition<unknown>, 'keys' | 'promoteDue'>;

/** How far this clock may have run ahead of the server's by the time a notice's delay is over (ms). */
const DRIFT_MS = 100;
/** The longest timer Node keeps (about 24.8 days); a job due later is left to the claims. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Starts a delayed job on time on a worker that is waiting for work. A worker learns when the
 * next delayed job is due from its own claims and waits until then, or until a push onto
 * pending; a delayed job added during that wait and due sooner would start only when the wait
 * ends, up to a second late (half a second on a partitioned queue). The scripts that delay a job
 * say, on the queue's wake channel, how many ms until it is due when no delayed job is due before
 * it (scripts/lib/due-notice.lua). This listens on every partition's channel, on the worker's
 * pub/sub connection, and when that time comes promotes the due jobs of the partition: their
 * push onto pending wakes the waiting claims, this worker's and every other's. Notices lost (a
 * reconnect, a producer that is not @jobs) only bring back the late start.
 */
export class DueNotices {
  /** The queues (one per partition), by their wake channel. */
  readonly #queues: ReadonlyMap<string, NoticedQueue>;
  /** Per queue, the one promotion scheduled: the earliest notice heard. */
  readonly #timers = new Map<NoticedQueue, { at: number; timer: NodeJS.Timeout }>();
  readonly #onError: (error: unknown, message: string) => void;
  readonly #hasRoom: () => boolean;
  #closed = false;
  /** Settles once the channels are subscribed (or that failed, which is reported). */
  readonly ready: Promise<void>;

  /**
   * Subscribes at once, on `subscriber` (the worker's, which the worker closes). `hasRoom`:
   * whether the worker has a free slot when a job comes due (a full worker leaves the promotion
   * to its next claim, so that a stream of delayed jobs does not send every worker to promote
   * each one); `onError` hears what goes wrong.
   */
  constructor(subscriber: SharedSubscriber, queues: readonly NoticedQueue[], hasRoom: () => boolean, onError: (error: unknown, message: string) => void) {
    this.#queues = new Map(queues.map((queue) => [queue.keys.wake, queue]));
    this.#hasRoom = hasRoom;
    this.#onError = onError;
    this.ready = subscriber.listen([...this.#queues.keys()], (channel, message) => this.#heard(channel, message)).then(
      () => undefined,
      (error: unknown) => {
        if (!this.#closed) onError(error, 'could not subscribe to delayed-job notices: a delayed job added while the worker waits may start up to a second late');
      },
    );
  }

  #heard(channel: string, message: string): void {
    const queue = this.#queues.get(channel);
    const ms = Number(message);
    if (!queue || this.#closed || !Number.isFinite(ms) || ms < 0 || ms > MAX_TIMER_MS) return;
    this.#promoteIn(queue, ms);
  }

  /**
   * Promotes `queue`'s due jobs in `ms`, unless a promotion is already set for no later.
   * `lookAgain`: if nothing is due by then, look once more when the next job is, should that be
   * within {@link DRIFT_MS} (this clock ran ahead of the server's over a long delay).
   */
  #promoteIn(queue: NoticedQueue, ms: number, lookAgain = true): void {
    const at = Date.now() + ms;
    const scheduled = this.#timers.get(queue);
    if (scheduled && scheduled.at <= at) return;
    clearTimeout(scheduled?.timer);
    this.#timers.set(queue, { at, timer: setTimeout(() => void this.#promote(queue, lookAgain), ms) });
  }

  async #promote(queue: NoticedQueue, lookAgain: boolean): Promise<void> {
    this.#timers.delete(queue);
    if (this.#closed || !this.#hasRoom()) return;
    try {
      const { promoted, nextDueMs, nowMs } = await queue.promoteDue();
      // Once only: another worker promoting first also leaves nothing due, and each worker
      // chasing every due time after that would be a poll.
      const untilNext = nextDueMs === null ? -1 : nextDueMs - nowMs;
      if (lookAgain && promoted === 0 && untilNext >= 0 && untilNext <= DRIFT_MS && !this.#closed) this.#promoteIn(queue, Math.max(1, untilNext), false);
    } catch (error) {
      // The worker's own claims promote due jobs too: the job starts when the wait ends.
      if (!this.#closed) this.#onError(error, 'could not promote a delayed job that came due');
    }
  }

  /** Stops acting on notices and drops the promotions not yet made (the connection is the worker's to close). */
  async close(): Promise<void> {
    this.#closed = true;
    for (const { timer } of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }
}
