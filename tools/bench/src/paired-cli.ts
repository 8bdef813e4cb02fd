#!/usr/bin/env node
/**
 * `pnpm --filter @jobs/bench run bench:paired -- --base ../other-checkout [--blocks 16]
 * [--jobs 4000] [--only enqueue-64,process-16,process-64] [--head-options JSON]`: this checkout
 * against another one (built), block by block on one redis-server; prints a Markdown table (see
 * paired.ts). `--head-options '{"metricsHistory":true}'` with `--base .` measures a feature turned on.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PAIRED_SCENARIOS, pairedTable, runPaired, type PairedScenario } from './paired.ts';
import { scriptArgs } from './script-args.ts';

const { values } = parseArgs({ args: scriptArgs(), options: { base: { type: 'string' }, blocks: { type: 'string', default: '16' }, jobs: { type: 'string', default: '4000' }, only: { type: 'string' }, 'head-options': { type: 'string' } } });
const blocks = Number(values.blocks);
const jobsPerBlock = Number(values.jobs);
let headOptions: Record<string, unknown> | undefined;
try {
  headOptions = values['head-options'] === undefined ? undefined : (JSON.parse(values['head-options']) as Record<string, unknown>);
  if (headOptions !== undefined && (typeof headOptions !== 'object' || headOptions === null || Array.isArray(headOptions))) throw new TypeError('not an object');
} catch {
  headOptions = undefined;
  process.stderr.write('--head-options must be a JSON object\n');
  process.exit(2);
}
const scenarios = (values.only?.split(',').map((s) => s.trim()) ?? [...PAIRED_SCENARIOS]) as PairedScenario[];
if (values.base === undefined || !Number.isInteger(blocks) || blocks < 1 || !Number.isInteger(jobsPerBlock) || jobsPerBlock < 1 || scenarios.some((s) => !PAIRED_SCENARIOS.includes(s))) {
  process.stderr.write(`usage: bench:paired -- --base DIR [--blocks 16] [--jobs 4000] [--only ${PAIRED_SCENARIOS.join(',')}] [--head-options JSON]\n  DIR: another checkout of this repository, its packages built\n`);
  process.exit(2);
}
const results = await runPaired({ base: resolve(values.base), scenarios, blocks, jobsPerBlock, ...(headOptions && { headOptions }), log: (line) => process.stderr.write(`[paired] ${line}\n`) });
process.stdout.write(`${pairedTable(results)}\n`);
