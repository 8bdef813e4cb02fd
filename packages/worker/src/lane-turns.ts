import { pause, type Clock } from './clock.ts';
import type { Lane } from './lane.ts';

/**
 * With partitions: how long one lane's turn lasts while others have work. A change of turn
 * costs a little (the next partition's Redis starts cold), and a partition behind busy others
 * waits at most this long for each of them (figures in docs/BENCHMARKS.md).
 */
export const LANE_TURN_MS = 250;

/**
 * Which lane (partition) the worker claims from: the lanes with work take turns of
 * {@link LANE_TURN_MS}, an empty one passing its turn at once, so each partition with work gets
 * an equal share of the worker over time while every claim and completion batch stays as large
 * as on a plain queue.
 */
export class LaneTurns {
  readonly #lanes: readonly Lane[];
  readonly #clock: Clock;
  readonly #stop: AbortSignal;
  /** The lane whose turn it is, and since when. */
  #focus = 0;
  #focusSince = 0;

  constructor(lanes: readonly Lane[], clock: Clock, stop: AbortSignal) {
    this.#lanes = lanes;
    this.#clock = clock;
    this.#stop = stop;
  }

  /**
   * The lane whose turn it is: the current one until its turn is over or it looks empty, then
   * the next that may have work, round robin (the current one again only when no other has).
   * Undefined when every lane looks empty.
   */
  current(now = this.#clock.now()): Lane | undefined {
    const count = this.#lanes.length;
    const current = this.#lanes[this.#focus] as Lane;
    if (current.mayHaveWork(now) && now - this.#focusSince < LANE_TURN_MS) return current;
    for (let step = 1; step <= count; step += 1) {
      const index = (this.#focus + step) % count;
      const lane = this.#lanes[index] as Lane;
      if (lane.mayHaveWork(now)) {
        this.#focus = index;
        this.#focusSince = now;
        return lane;
      }
    }
    return undefined;
  }

  /**
   * Every lane looked empty: block on all of them at once (one blocking connection each) until
   * a push wakes one, or the first lane's quiet spell ends (delayed jobs come due that way), or
   * the worker stops. Only this wait listens for the stop: the lanes' waits end by their timeout,
   * a push or the queue's close, and those that lose the race go on and wake their lane when they
   * end. Each listening for the stop as well held a listener on the stop signal until it ended,
   * and a partition that keeps waking the worker piled them up past Node's warning.
   */
  async waitForAny(): Promise<void> {
    const clock = this.#clock;
    const timeoutMs = Math.max(1, Math.min(...this.#lanes.map((lane) => lane.quietUntil)) - clock.now());
    const anyLane = Promise.race(
      this.#lanes.map((lane) =>
        lane.queue.waitForWork(timeoutMs).then(
          () => lane.wake(),
          // Redis away: the lane's next claim reports it; meanwhile do not spin.
          () => pause(clock, Math.min(timeoutMs, 1_000), this.#stop).then(() => lane.wake()),
        ),
      ),
    );
    // The lanes' waits end a few ms after timeoutMs by themselves (and wake their lanes): this
    // bound only backs that up.
    await pause(clock, timeoutMs + 50, this.#stop, anyLane);
  }
}
