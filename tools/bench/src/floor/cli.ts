#!/usr/bin/env node
/**
 * `pnpm --filter @jobs/bench run bench:floor -- [--n 60000] [--reps 5] [--warmup 5000]`: the
 * bare-socket loop against the real @jobs worker at concurrency 64 (see floor-run.ts); prints a
 * Markdown table of rate and CPU per job, medians over the repetitions, and the ratios.
 */
import { parseArgs } from 'node:util';
import { runFloor } from './floor-run.ts';
import { floorTable } from './floor-table.ts';
import { scriptArgs } from '../script-args.ts';

const USAGE = 'usage: bench:floor -- [--n 60000] [--reps 5] [--warmup 5000]\n  --n: jobs per run; --reps: repetitions of both loops; --warmup: jobs per loop in an uncounted first round (0: none)\n';

function usage(): never {
  process.stderr.write(USAGE);
  process.exit(2);
}

let values: { n: string; reps: string; warmup: string };
try {
  ({ values } = parseArgs({ args: scriptArgs(), options: { n: { type: 'string', default: '60000' }, reps: { type: 'string', default: '5' }, warmup: { type: 'string', default: '5000' } } }));
} catch {
  usage();
}
const whole = (text: string, min: number): number | undefined => (/^\d+$/.test(text) && Number(text) >= min ? Number(text) : undefined);
const n = whole(values.n, 1);
const reps = whole(values.reps, 1);
const warmupJobs = whole(values.warmup, 0);
if (n === undefined || reps === undefined || warmupJobs === undefined) usage();
const run = await runFloor({ n, reps, warmupJobs, log: (line) => process.stderr.write(`[floor] ${line}\n`) });
process.stdout.write(`${floorTable(run)}\n`);
