#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { runChaos } from './run-chaos.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '60' }, workers: { type: 'string', default: '3' }, partitions: { type: 'string', default: '1' }, quiet: { type: 'boolean', default: false } } });
const seconds = Number(values.seconds);
const workers = Number(values.workers);
const partitions = Number(values.partitions);
if (!Number.isInteger(seconds) || seconds < 10 || seconds > 86_400 || !Number.isInteger(workers) || workers < 1 || workers > 32 || !Number.isInteger(partitions) || partitions < 1 || partitions > 64) {
  process.stderr.write('usage: pnpm test:chaos -- [--seconds N (10..86400, default 60)] [--workers N (1..32)] [--partitions N (1..64)]\n');
  process.exit(2);
}
const report = await runChaos({ seconds, workers, partitions, ...(!values.quiet && { log: (line: string) => process.stderr.write(`[chaos] ${line}\n`) }) });
process.stdout.write(`${report.summary}\n`);
const capProblems = [...(report.capViolations ?? []), ...(report.groupCapViolations ?? [])];
for (const problem of [...report.lost, ...report.fencingViolations, ...report.counterMismatches, ...capProblems].slice(0, 20)) process.stdout.write(`  ${problem}\n`);
process.exitCode = report.lost.length + report.fencingViolations.length + report.counterMismatches.length + report.leftover + capProblems.length + (report.slotsHeld ?? 0) === 0 ? 0 : 1;
