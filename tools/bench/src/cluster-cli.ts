#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { clusterReport, runClusterBench } from './cluster-bench.ts';
import { scriptArgs } from './script-args.ts';

const { values } = parseArgs({ args: scriptArgs(), options: { n: { type: 'string', default: '20000' }, partitions: { type: 'string', default: '6' }, reps: { type: 'string', default: '3' }, pin: { type: 'boolean', default: false }, 'no-events': { type: 'boolean', default: false } } });
const [n, partitions, reps] = [Number(values.n), Number(values.partitions), Number(values.reps)];
if (![n, partitions, reps].every((value) => Number.isInteger(value) && value > 0) || partitions < 2) {
  process.stderr.write('usage: pnpm bench:cluster -- [--n 20000] [--partitions 6 (2 or more)] [--reps 3] [--pin] [--no-events]\n');
  process.exit(2);
}
const run = await runClusterBench({ n, partitions, reps, pin: values.pin, events: !values['no-events'], log: (line) => process.stderr.write(`[bench:cluster] ${line}\n`) });
process.stdout.write(clusterReport(run));
