#!/usr/bin/env node
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { markdownReport, svgChart } from './report.ts';
import { spliceResults } from './results-section.ts';
import { runBenchmarks } from './run-bench.ts';
import { scriptArgs } from './script-args.ts';

const { values } = parseArgs({
  args: scriptArgs(),
  options: {
    n: { type: 'string', default: '10000' },
    reps: { type: 'string', default: '5' },
    'latency-jobs': { type: 'string', default: '5000' },
    out: { type: 'string' },
    smoke: { type: 'boolean', default: false },
    only: { type: 'string' },
    systems: { type: 'string' },
  },
});
const smoke = values.smoke;
const n = smoke ? 300 : Number(values.n);
const reps = smoke ? 1 : Number(values.reps);
const latencyJobs = smoke ? 200 : Number(values['latency-jobs']);
if (![n, reps, latencyJobs].every((v) => Number.isInteger(v) && v > 0)) {
  process.stderr.write('usage: pnpm bench -- [--n 10000] [--reps 5] [--latency-jobs 5000] [--out docs/BENCHMARKS.md] [--smoke] [--only process-64,latency (opt-in: process-16-isolated)] [--systems @jobs,BullMQ]\n');
  process.exit(2);
}
const list = (value: string | undefined): string[] | undefined => value?.split(',').map((item) => item.trim()).filter(Boolean);
const only = list(values.only);
const systems = list(values.systems);
const run = await runBenchmarks({ n, reps, latencyJobs, ...(only && { scenarios: only }), ...(systems && { systems }), log: (line) => process.stderr.write(`[bench] ${line}\n`) });
const out = values.out ?? join(process.cwd(), 'bench-results', 'BENCHMARKS.md');
mkdirSync(dirname(out), { recursive: true });
const chart = join(dirname(out), 'benchmarks.svg');
writeFileSync(chart, svgChart(run));
writeFileSync(join(dirname(out), 'benchmarks.json'), JSON.stringify(run, null, 2));
const report = markdownReport(run, relative(dirname(out), chart));
let existing: string;
try {
  existing = readFileSync(out, 'utf8');
} catch {
  existing = '';
}
writeFileSync(out, spliceResults(existing, report));
process.stdout.write(`${report}\nwrote ${out}\n`);
