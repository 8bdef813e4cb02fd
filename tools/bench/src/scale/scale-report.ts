import { median } from '../median.ts';
import type { ScaleMeasurement, ScaleRun } from './run-scale.ts';

/** One system at one process count: medians over its repetitions. */
export interface ScaleCell {
  rate: number;
  nodeCpuUs: number;
  redisCpuUs: number;
  reps: number;
}

/** The medians of `run`: process count -> system -> cell. */
export function scaleMedians(run: ScaleRun): Map<number, Map<string, ScaleCell>> {
  const table = new Map<number, Map<string, ScaleCell>>();
  for (const processes of run.options.processes) {
    const row = new Map<string, ScaleCell>();
    for (const system of run.options.systems) {
      const runs: ScaleMeasurement[] = run.measurements.filter((m) => m.processes === processes && m.system === system);
      if (runs.length === 0) continue;
      row.set(system, { rate: median(runs.map((m) => m.rate)), nodeCpuUs: median(runs.map((m) => m.nodeCpuUs)), redisCpuUs: median(runs.map((m) => m.redisCpuUs)), reps: runs.length });
    }
    table.set(processes, row);
  }
  return table;
}

const rate = (cell: ScaleCell | undefined): string => (cell ? `${Math.round(cell.rate).toLocaleString('en-US')}/s` : '–');
const cpu = (cell: ScaleCell | undefined): string => (cell ? `${cell.nodeCpuUs.toFixed(1)} + ${cell.redisCpuUs.toFixed(1)}` : '–');

/**
 * The run as Markdown: a row per process count with each system's rate, the ratio of the first
 * two systems' rates, and each system's CPU per job (Node + Redis); then what it ran on.
 */
export function scaleReport(run: ScaleRun): string {
  const { systems, concurrency, n, reps } = run.options;
  const [first, second] = systems;
  const ratio = first !== undefined && second !== undefined ? `${first} / ${second}` : undefined;
  const header = ['worker processes', 'concurrency each', ...systems.map((s) => `${s} jobs/s`), ...(ratio ? [ratio] : []), ...systems.map((s) => `${s} CPU/job, µs: Node + Redis`)];
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---:').join('|')}|`];
  for (const [processes, row] of scaleMedians(run)) {
    const a = first === undefined ? undefined : row.get(first);
    const b = second === undefined ? undefined : row.get(second);
    const cells = [
      String(processes),
      String(concurrency / processes),
      ...systems.map((s) => rate(row.get(s))),
      ...(ratio ? [a && b ? `${(a.rate / b.rate).toFixed(2)}x` : '–'] : []),
      ...systems.map((s) => cpu(row.get(s))),
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  const most = Math.max(...run.options.processes);
  const sharing = most + 1 > run.cores ? ` At ${most} worker processes, they and Redis outnumber the ${run.cores} cores: they take turns on them, and Redis competes with the workers.` : '';
  const sentence =
    `Measured on a machine with ${run.cores} cores (${run.cpuModel}), Redis ${run.redisVersion}: ${n.toLocaleString('en-US')} jobs pre-enqueued per run, concurrency ${concurrency} in total split evenly over the worker processes, median of ${reps} repetition${reps === 1 ? '' : 's'}. ` +
    `Each process first runs ${run.options.warmup.toLocaleString('en-US')} jobs of its own, untimed, so that V8 has compiled what the timed part runs; then its workers start paused and ready, and the time runs from the parent's "go" to the last completion it counted. Node CPU is the worker processes' and the parent's together.${sharing}`;
  return `${lines.join('\n')}\n\n${sentence}\n`;
}
