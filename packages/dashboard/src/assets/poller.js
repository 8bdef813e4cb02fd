// Polls on an interval that starts when the last answer arrived, so a slow server never gets a
// second request while one is in flight: polls cannot pile up, however slow the answers.

/**
 * @param {() => Promise<void>} tick  one poll; its errors are reported, not thrown
 * @param {number} intervalMs         time from one answer to the next request; 0 stops polling
 * @param {(error: unknown) => void} onError
 */
export function createPoller(tick, intervalMs, onError) {
  let interval = intervalMs;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  let running = false;
  let again = false;

  async function run() {
    clearTimeout(timer);
    timer = undefined;
    if (running) {
      // A poll is in flight: ask for one more right after it, never a second one alongside.
      again = true;
      return;
    }
    running = true;
    try {
      await tick();
    } catch (error) {
      onError(error);
    } finally {
      running = false;
    }
    if (again) {
      again = false;
      void run();
    } else if (interval > 0) {
      timer = setTimeout(run, interval);
    }
  }

  return {
    /** Polls now (or right after the poll in flight), then on the interval. */
    now: run,
    /** @param {number} ms */
    setInterval(ms) {
      interval = ms;
      if (!running) void run();
    },
    get intervalMs() {
      return interval;
    },
  };
}
