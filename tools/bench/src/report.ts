import { cpus, totalmem } from 'node:os';
import { median } from './median.ts';
import type { Measurement } from './scenarios.ts';
import { SCENARIOS, type BenchRun } from './run-bench.ts';

/** Median of one field over the repetitions of one system in one scenario. */
export function medianOf(run: BenchRun, scenario: string, system: string, field: keyof Measurement): number {
  return median((run.results[scenario]?.[system] ?? []).map((m) => m[field]));
}

const fmtRate = (value: number): string => (Number.isFinite(value) ? `${Math.round(value).toLocaleString('en-US')}/s` : '-');
const fmtMs = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(2)} ms` : '-');
const fmtRatio = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(2)}x` : '-');

const fmtUs = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(1)} µs` : '-');

/** One target of the benchmark issue, as checked against one run. */
export interface TargetCheck {
  target: string;
  value: string;
  met: boolean;
}

/**
 * The targets of issue 30, checked against one run. Every ratio is taken within the run (the
 * medians of two systems measured side by side), since absolute rates drift on a shared machine.
 */
export function targets(run: BenchRun): TargetCheck[] {
  const rate = (scenario: string, system: string): number => medianOf(run, scenario, system, 'rate');
  const ratio = (scenario: string, other: string): number => rate(scenario, '@jobs') / rate(scenario, other);
  const atLeast = (target: string, scenario: string, other: string, factor: number): TargetCheck => {
    const value = ratio(scenario, other);
    return { target, value: fmtRatio(value), met: value >= factor };
  };
  const done = (field: 'doneP50' | 'doneP99', system: string): number => medianOf(run, 'latency', system, field);
  const cpu = (field: 'nodeCpuUs' | 'redisCpuUs'): number => medianOf(run, 'process-64', '@jobs', field);
  return [
    atLeast('process, concurrency 64: at least 4x BullMQ', 'process-64', 'BullMQ', 4),
    atLeast('process, concurrency 64: at least 2.4x bee-queue', 'process-64', 'bee-queue', 2.4),
    atLeast('process, concurrency 16: at least 2.5x BullMQ', 'process-16', 'BullMQ', 2.5),
    atLeast('bulk enqueue: at least 10x BullMQ', 'enqueue-bulk', 'BullMQ', 10),
    atLeast('bulk enqueue: at least 3x bee-queue', 'enqueue-bulk', 'bee-queue', 3),
    atLeast("enqueue, 64 in flight: at least bee-queue's rate (1.0x)", 'enqueue-64', 'bee-queue', 1),
    { target: "done latency p50: no more than bee-queue's", value: `${fmtMs(done('doneP50', '@jobs'))} vs ${fmtMs(done('doneP50', 'bee-queue'))}`, met: done('doneP50', '@jobs') <= done('doneP50', 'bee-queue') },
    { target: "done latency p99: at most half of BullMQ's", value: `${fmtMs(done('doneP99', '@jobs'))} vs ${fmtMs(done('doneP99', 'BullMQ'))}`, met: done('doneP99', '@jobs') <= done('doneP99', 'BullMQ') / 2 },
    { target: 'worker (Node) CPU per job at concurrency 64: at most 8 µs', value: fmtUs(cpu('nodeCpuUs')), met: cpu('nodeCpuUs') <= 8 },
    { target: 'Redis CPU per job at concurrency 64: at most 7 µs', value: fmtUs(cpu('redisCpuUs')), met: cpu('redisCpuUs') <= 7 },
  ];
}

/** The report's opening words: how many repetitions the figures are the medians of. */
export function repetitionsHeader(reps: number): string {
  return reps === 1 ? 'One repetition, so single figures, not medians' : `Medians of ${reps} interleaved repetitions`;
}

/** The results as Markdown: throughput table, latency table, ratios, targets, method. */
export function markdownReport(run: BenchRun, chartFile: string): string {
  const systems = Object.keys(run.guarantees);
  const lines: string[] = [];
  lines.push(`| scenario | ${systems.join(' | ')} | @jobs / BullMQ | @jobs / bee-queue |`, `|---|${systems.map(() => '---:').join('|')}|---:|---:|`);
  for (const scenario of SCENARIOS.filter((s) => s.id !== 'latency')) {
    const rates = systems.map((system) => medianOf(run, scenario.id, system, 'rate'));
    const ours = medianOf(run, scenario.id, '@jobs', 'rate');
    lines.push(`| ${scenario.title} | ${rates.map(fmtRate).join(' | ')} | ${fmtRatio(ours / medianOf(run, scenario.id, 'BullMQ', 'rate'))} | ${fmtRatio(ours / medianOf(run, scenario.id, 'bee-queue', 'rate'))} |`);
  }
  const latency: string[] = [`| latency at 1000 jobs/s, concurrency 64 | ${systems.join(' | ')} |`, `|---|${systems.map(() => '---:').join('|')}|`];
  for (const [field, label] of [['startP50', 'enqueue to start, p50'], ['startP99', 'enqueue to start, p99'], ['doneP50', 'enqueue to done, p50'], ['doneP99', 'enqueue to done, p99']] as const) {
    latency.push(`| ${label} | ${systems.map((system) => fmtMs(medianOf(run, 'latency', system, field))).join(' | ')} |`);
  }
  const cpu: string[] = [`| CPU per job (µs): Node + Redis | ${systems.join(' | ')} |`, `|---|${systems.map(() => '---:').join('|')}|`];
  for (const scenario of SCENARIOS) {
    const cell = (system: string): string => {
      const node = medianOf(run, scenario.id, system, 'nodeCpuUs');
      const redis = medianOf(run, scenario.id, system, 'redisCpuUs');
      return Number.isFinite(node) && Number.isFinite(redis) ? `${node.toFixed(1)} + ${redis.toFixed(1)}` : '-';
    };
    cpu.push(`| ${scenario.title} | ${systems.map(cell).join(' | ')} |`);
  }
  const targetRows = targets(run).map((t) => `| ${t.target} | ${t.value} | ${t.met ? 'met' : 'not met'} |`);
  return [
    '## Results',
    '',
    `${repetitionsHeader(run.options.reps)}; ${run.options.n.toLocaleString('en-US')} jobs per run (${Math.ceil(run.options.n / 5).toLocaleString('en-US')} for concurrency 1 and for one-at-a-time enqueue, ${(run.options.n * 2).toLocaleString('en-US')} for bulk enqueue), ${run.options.latencyJobs.toLocaleString('en-US')} jobs sent at 1000/s in the latency run. Redis ${run.redisVersion}, no persistence; ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}.`,
    '',
    ...lines,
    '',
    ...latency,
    '',
    'The CPU each system spent per job over the timed part of each scenario: this Node process (producer and workers, every thread) plus the redis-server (`INFO cpu`), in µs, medians. On a shared machine rates move with what else runs; the work per job says where each system spends it.',
    '',
    ...cpu,
    '',
    `![throughput by scenario](${chartFile})`,
    '',
    '### Targets',
    '',
    "Issue 30's targets, each a ratio of two systems' medians in this run (the CPU targets: @jobs's medians at concurrency 64).",
    '',
    '| target | this run | |',
    '|---|---|---|',
    ...targetRows,
    '',
    '### What each system does per job',
    '',
    ...systems.map((system) => `- **${system}**: ${run.guarantees[system]}.`),
    '',
  ].join('\n');
}

/** A grouped bar chart (SVG) of the median throughput of each system in each scenario, relative to the fastest. */
export function svgChart(run: BenchRun): string {
  const systems = Object.keys(run.guarantees);
  const colors = ['#27ae60', '#c0392b', '#e67e22', '#7f8c8d'];
  const scenarios = SCENARIOS.filter((s) => s.id !== 'latency');
  const width = 900;
  const rowHeight = 22 * systems.length + 30;
  const height = 40 + rowHeight * scenarios.length + 30;
  const left = 260;
  const barWidth = width - left - 120;
  const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="10" y="22" font-size="15" font-weight="bold">Throughput (jobs/s, median), bar length relative to the fastest in each scenario</text>`,
  ];
  scenarios.forEach((scenario, row) => {
    const top = 40 + row * rowHeight;
    const rates = systems.map((system) => medianOf(run, scenario.id, system, 'rate'));
    const best = Math.max(...rates.filter(Number.isFinite), 1);
    parts.push(`<text x="10" y="${top + 14}" font-weight="bold">${escape(scenario.title)}</text>`);
    systems.forEach((system, i) => {
      const y = top + 18 + i * 22;
      const rate = rates[i] as number;
      const length = Number.isFinite(rate) ? Math.max(1, (rate / best) * barWidth) : 0;
      parts.push(`<text x="${left - 8}" y="${y + 14}" text-anchor="end">${escape(system)}</text>`);
      parts.push(`<rect x="${left}" y="${y + 2}" width="${length.toFixed(1)}" height="16" fill="${colors[i % colors.length]}"/>`);
      parts.push(`<text x="${left + length + 6}" y="${y + 14}">${escape(fmtRate(rate))}</text>`);
    });
  });
  parts.push('</svg>');
  return parts.join('\n');
}
