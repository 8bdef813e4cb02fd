/** How the demo's mock workers behave (the recipe demo's knobs). */
export interface WorkConfig {
  /** Time each job takes. */
  workLatencyMs: number;
  /** Share of jobs whose attempt fails (the handler throws). */
  failRate: number;
  /** Share of jobs whose worker crashes while holding them (the process dies; the lease expires). */
  hangRate: number;
}

/** The recipe demo's defaults. */
export const DEFAULT_WORK_CONFIG: WorkConfig = Object.freeze({ workLatencyMs: 400, failRate: 0, hangRate: 0 });

/** What happens to one job, decided before the work as in the recipe: hang wins, then fail. */
export type Outcome = 'ok' | 'fail' | 'hang';

/** Rolls the outcome of one job. */
export function rollOutcome(config: WorkConfig, roll: number = Math.random()): Outcome {
  if (roll < config.hangRate) return 'hang';
  if (roll < config.hangRate + config.failRate) return 'fail';
  return 'ok';
}
