#!/usr/bin/env node
/**
 * `pnpm --filter @jobs/bench run bench:paired -- --base ../other-checkout [--blocks 16]
 * [--jobs 4000] [--only enqueue-64,process-16,process-64]`: this checkout against another one
 * (built), block by block on one redis-server; prints a Markdown table (see paired.ts).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PAIRED_SCENARIOS, pairedTable, runPaired, type PairedScenario } from './paired.ts';

// pnpm 12 passes a `--` after the script's name on to it; npm does not.
const argv = process.argv.slice(2);
const { values } = parseArgs({ args: argv[0] === '--' ? argv.slice(1) : argv, options: { base: { type: 'string' }, blocks: { type: 'string', default: '16' }, jobs: { type: 'string', default: '4000' }, only: { type: 'string' } } });
const blocks = Number(values.blocks);
const jobsPerBlock = Number(values.jobs);
const scenarios = (values.only?.split(',').map((s) => s.trim()) ?? [...PAIRED_SCENARIOS]) as PairedScenario[];
if (values.base === undefined || !Number.isInteger(blocks) || blocks < 1 || !Number.isInteger(jobsPerBlock) || jobsPerBlock < 1 || scenarios.some((s) => !PAIRED_SCENARIOS.includes(s))) {
  process.stderr.write(`usage: bench:paired -- --base DIR [--blocks 16] [--jobs 4000] [--only ${PAIRED_SCENARIOS.join(',')}]\n  DIR: another checkout of this repository, its packages built\n`);
  process.exit(2);
}
const results = await runPaired({ base: resolve(values.base), scenarios, blocks, jobsPerBlock, log: (line) => process.stderr.write(`[paired] ${line}\n`) });
process.stdout.write(`${pairedTable(results)}\n`);
