import { median } from '../median.ts';
import type { FloorRun, FloorSample } from './floor-run.ts';

/** The rows' labels, as the table prints them. */
export const FLOOR_ROWS = { bare: 'bare socket, own RESP (floor)', worker: '@jobs worker (ioredis)', ratio: 'worker / floor' } as const;

type Figure = keyof FloorSample;

const FIGURES: readonly Figure[] = ['rate', 'nodeCpuUs', 'redisCpuUs', 'fcallsPerJob'];

function format(figure: Figure, value: number): string {
  if (figure === 'rate') return Math.round(value).toLocaleString('en-US');
  // Calls shown per 100 jobs, so that batched calls do not all read as 0.0 per job.
  return (figure === 'fcallsPerJob' ? value * 100 : value).toFixed(1);
}

/** A cell: the median, and the range over the repetitions when there are several. */
function cell(figure: Figure, samples: readonly FloorSample[]): string {
  const values = samples.map((sample) => sample[figure]);
  const mid = format(figure, median(values));
  if (values.length < 2) return mid;
  return `${mid} (${format(figure, Math.min(...values))}–${format(figure, Math.max(...values))})`;
}

/**
 * The run as a Markdown table: per side the median rate, CPU per job and script calls per 100
 * jobs (with their range over the repetitions), then the worker's medians over the floor's.
 */
export function floorTable(run: FloorRun): string {
  const lines = [
    `${run.n.toLocaleString('en-US')} pre-enqueued jobs per run, concurrency ${run.concurrency}, ${run.reps} repetition${run.reps === 1 ? '' : 's'}; medians (min–max).`,
    '',
    '| loop | jobs/s | Node CPU µs/job | Redis CPU µs/job | FCALLs per 100 jobs |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const side of ['bare', 'worker'] as const) lines.push(`| ${FLOOR_ROWS[side]} | ${FIGURES.map((figure) => cell(figure, run[side])).join(' | ')} |`);
  const ratios = FIGURES.map((figure) => `${(median(run.worker.map((s) => s[figure])) / median(run.bare.map((s) => s[figure]))).toFixed(2)}x`);
  lines.push(`| ${FLOOR_ROWS.ratio} | ${ratios.join(' | ')} |`);
  return lines.join('\n');
}
