#!/usr/bin/env node
/**
 * The scale benchmark from the command line: prints a Markdown table (and writes it with --out).
 *
 *   pnpm bench:scale -- [--processes 1,4,8] [--concurrency 64] [--n 20000] [--reps 3] [--systems @jobs,BullMQ] [--warmup 5000] [--out FILE]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { checkScaleOptions, DEFAULT_SCALE_OPTIONS, ScaleUsageError, type ScaleOptions } from './options.ts';
import { runScale } from './run-scale.ts';
import { scaleReport } from './scale-report.ts';
import { scriptArgs } from '../script-args.ts';

const USAGE = 'usage: pnpm bench:scale -- [--processes 1,4,8 (each must divide the concurrency)] [--concurrency 64] [--n 20000] [--reps 3] [--systems @jobs,BullMQ] [--warmup 5000 (jobs per process, untimed)] [--out FILE]\n';

const list = (value: string): string[] => value.split(',').map((item) => item.trim()).filter(Boolean);

/** The options the command line gives; throws {@link ScaleUsageError} for any that cannot run. */
function readOptions(): { options: ScaleOptions; out: string | undefined } {
  let values;
  try {
    ({ values } = parseArgs({
      args: scriptArgs(),
      options: {
        processes: { type: 'string', default: DEFAULT_SCALE_OPTIONS.processes.join(',') },
        concurrency: { type: 'string', default: String(DEFAULT_SCALE_OPTIONS.concurrency) },
        n: { type: 'string', default: String(DEFAULT_SCALE_OPTIONS.n) },
        reps: { type: 'string', default: String(DEFAULT_SCALE_OPTIONS.reps) },
        systems: { type: 'string', default: DEFAULT_SCALE_OPTIONS.systems.join(',') },
        warmup: { type: 'string', default: String(DEFAULT_SCALE_OPTIONS.warmup) },
        out: { type: 'string' },
      },
    }));
  } catch (error) {
    throw new ScaleUsageError((error as Error).message);
  }
  const options = checkScaleOptions({
    processes: list(values.processes).map(Number),
    concurrency: Number(values.concurrency),
    n: Number(values.n),
    reps: Number(values.reps),
    systems: list(values.systems),
    warmup: Number(values.warmup),
  });
  return { options, out: values.out };
}

let parsed: ReturnType<typeof readOptions>;
try {
  parsed = readOptions();
} catch (error) {
  if (!(error instanceof ScaleUsageError)) throw error;
  process.stderr.write(`${error.message}\n${USAGE}`);
  process.exit(2);
}
const run = await runScale({ ...parsed.options, log: (line) => process.stderr.write(`[bench:scale] ${line}\n`) });
const report = scaleReport(run);
process.stdout.write(report);
if (parsed.out !== undefined) {
  mkdirSync(dirname(parsed.out), { recursive: true });
  writeFileSync(parsed.out, report);
  process.stdout.write(`wrote ${parsed.out}\n`);
}
