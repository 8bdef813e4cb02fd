import { SCALE_SYSTEMS, scaleSystem } from './systems.ts';

/** What a scale run does: each system, at each process count, `reps` times. */
export interface ScaleOptions {
  /** Worker process counts; each must divide `concurrency`. Default 1, 4, 8. */
  processes: readonly number[];
  /** Concurrency in total, split evenly over the processes. Default 64. */
  concurrency: number;
  /** Jobs per run. Default 20,000. */
  n: number;
  /** Repetitions of every (system, process count); who goes first alternates. Default 3. */
  reps: number;
  /** Systems by adapter name (see {@link SCALE_SYSTEMS}). Default @jobs, BullMQ. */
  systems: readonly string[];
  /**
   * Jobs each worker process runs on a queue of its own before it says it is ready, untimed, so
   * that the timed part meets code V8 has compiled, as a long-running worker's is. 0: none.
   * Default 5,000.
   */
  warmup: number;
}

/** The defaults of {@link ScaleOptions}. */
export const DEFAULT_SCALE_OPTIONS: ScaleOptions = { processes: [1, 4, 8], concurrency: 64, n: 20_000, reps: 3, systems: ['@jobs', 'BullMQ'], warmup: 5_000 };

/** Options that make no run: the CLI prints its usage line for it and exits with code 2. */
export class ScaleUsageError extends Error {
  override readonly name = 'ScaleUsageError';
}

const isCount = (value: number): boolean => Number.isInteger(value) && value > 0;

/** Fills in the defaults and checks the options; throws {@link ScaleUsageError} for any that cannot run. */
export function checkScaleOptions(given: Partial<ScaleOptions>): ScaleOptions {
  const options = { ...DEFAULT_SCALE_OPTIONS, ...given };
  for (const key of ['concurrency', 'n', 'reps'] as const) {
    if (!isCount(options[key])) throw new ScaleUsageError(`--${key} must be a whole number above 0, got ${options[key]}`);
  }
  if (!Number.isInteger(options.warmup) || options.warmup < 0) throw new ScaleUsageError(`--warmup must be a whole number from 0, got ${options.warmup}`);
  if (options.processes.length === 0) throw new ScaleUsageError('--processes lists no process count');
  for (const processes of options.processes) {
    if (!isCount(processes)) throw new ScaleUsageError(`--processes must list whole numbers above 0, got ${processes}`);
    if (options.concurrency % processes !== 0) throw new ScaleUsageError(`${processes} processes do not divide --concurrency ${options.concurrency} evenly`);
  }
  if (options.systems.length === 0) throw new ScaleUsageError('--systems lists no system');
  for (const system of options.systems) {
    if (scaleSystem(system) === undefined) throw new ScaleUsageError(`unknown system ${JSON.stringify(system)}: the scale benchmark knows ${Object.keys(SCALE_SYSTEMS).join(', ')}`);
  }
  if (new Set(options.systems).size !== options.systems.length) throw new ScaleUsageError('--systems names a system twice');
  return options;
}
