#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { runFailover } from './run-failover.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '12' },
    workers: { type: 'string', default: '3' },
    mode: { type: 'string', default: 'both' },
    'lag-ms': { type: 'string', default: '500' },
    quiet: { type: 'boolean', default: false },
  },
});
const seconds = Number(values.seconds);
const workers = Number(values.workers);
const lagMs = Number(values['lag-ms']);
const modes = { both: [true, false], durable: [true], default: [false] }[values.mode as string];
if (!Number.isInteger(seconds) || seconds < 6 || seconds > 3_600 || !Number.isInteger(workers) || workers < 1 || workers > 32 || modes === undefined || !Number.isInteger(lagMs) || lagMs < 0 || lagMs > 5_000) {
  process.stderr.write('usage: pnpm test:failover -- [--seconds N (6..3600, default 12)] [--workers N (1..32)] [--mode both|durable|default] [--lag-ms N (0..5000, default 500)]\n');
  process.exit(2);
}
let durableLosses = 0;
for (const durable of modes) {
  const report = await runFailover({ durable, seconds, workers, lagMs, ...(!values.quiet && { log: (line: string) => process.stderr.write(`[failover] ${line}\n`) }) });
  process.stdout.write(`${report.summary}\n`);
  for (const problem of [...report.lost, ...report.leftover].slice(0, 20)) process.stdout.write(`  ${problem}\n`);
  // Losses without durable mode are what the run measures; with it, they are a failure.
  if (durable) durableLosses += report.lost.length + report.leftover.length;
}
process.exitCode = durableLosses === 0 ? 0 : 1;
