import type { AdapterFactory } from '../adapter.ts';
import { bullmqAdapter } from '../adapters/bullmq.ts';
import { jobsAdapter } from '../adapters/jobs.ts';

/**
 * The systems the scale benchmark compares, by adapter name: those whose workers can start
 * paused (`startPausedWorkers`), so that every process is up before the clock starts.
 */
export const SCALE_SYSTEMS: Readonly<Record<string, AdapterFactory>> = {
  '@jobs': jobsAdapter,
  BullMQ: bullmqAdapter,
};

/** The factory of system `name`, or `undefined` for a system the benchmark does not know. */
export function scaleSystem(name: string): AdapterFactory | undefined {
  return Object.hasOwn(SCALE_SYSTEMS, name) ? SCALE_SYSTEMS[name] : undefined;
}
