import { defineKinds, Queue, type QueueHistory, type RedisClient } from '@jobs/core';
import { recordedPartitions } from '@jobs/core/internal';
import { renderTable } from '../table.ts';
import { UsageError } from '../usage-error.ts';
import type { AdminResult } from './run-admin.ts';

/** `jobsctl stats -q <queue> --since <duration> [--kind K] [--step <duration>]`: the queue's metrics history. */
export interface HistoryCommand {
  readonly name: 'history';
  readonly queue: string;
  readonly sinceMs: number;
  readonly kind: string | undefined;
  /** The step of the rows; undefined: the default for the span (see {@link defaultStepMs}). */
  readonly stepMs: number | undefined;
}

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration as operators write it (`90m`, `24h`, `14d`) in ms, or a {@link UsageError} naming `flag`. */
export function parseDuration(flag: string, raw: string): number {
  const match = /^(\d{1,6})([mhd])$/.exec(raw.trim());
  if (!match) throw new UsageError(`${flag} takes a duration such as 30m, 24h or 14d, got ${JSON.stringify(raw)}`);
  return Number(match[1]) * (UNITS[match[2] as string] as number);
}

/** The rows' step when none is asked for: a minute up to an hour, an hour up to a day, a day past it. */
export function defaultStepMs(sinceMs: number): number {
  if (sinceMs <= 3_600_000) return 60_000;
  return sinceMs <= 86_400_000 ? 3_600_000 : 86_400_000;
}

/** A run time for the table: ms below a second, then seconds, minutes, hours. */
function runTime(ms: number | null): string {
  if (ms === null) return '-';
  if (ms < 1_000) return `${ms}ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)}s`;
  return ms < 3_600_000 ? `${(ms / 60_000).toFixed(1)}m` : `${(ms / 3_600_000).toFixed(1)}h`;
}

const HEADERS = ['FROM', 'ENQUEUED', 'COMPLETED', 'FAILED', 'RETRIED', 'P50', 'P95', 'P99'];

/** The history as a table: a row per step, oldest first, then the totals. */
function historyTable(history: QueueHistory): string {
  const rows = history.atMs.map((at, i) => [
    new Date(at).toISOString().replace(/:00\.000Z$/, 'Z'),
    history.enqueued[i] as number,
    history.completed[i] as number,
    history.failed[i] as number,
    history.retried[i] as number,
    runTime(history.runMsP50[i] ?? null),
    runTime(history.runMsP95[i] ?? null),
    runTime(history.runMsP99[i] ?? null),
  ]);
  const total = (column: readonly number[]): number => column.reduce((a, b) => a + b, 0);
  rows.push(['total', total(history.enqueued), total(history.completed), total(history.failed), total(history.retried), '', '', '']);
  return renderTable(HEADERS, rows);
}

/** Reads the queue's metrics history (every partition's, summed) and prints it per step. */
export async function runHistoryCommand(command: HistoryCommand, client: RedisClient): Promise<AdminResult> {
  const partitions = await recordedPartitions(client, command.queue);
  const queue = new Queue({ redis: client, queue: command.queue, kinds: defineKinds({}), partitions });
  const stepMs = command.stepMs ?? Math.min(defaultStepMs(command.sinceMs), command.sinceMs);
  const history = await queue.history({ since: command.sinceMs, stepMs, ...(command.kind !== undefined && { kind: command.kind }) });
  const json = { queue: command.queue, ...history };
  if (history.kinds.length === 0) return { code: 0, text: `no metrics history in ${command.queue} (is its metricsHistory option on?)`, json };
  const of = command.kind === undefined ? `every kind (${history.kinds.join(', ')})` : `kind ${command.kind}`;
  return { code: 0, text: `${command.queue}, ${of}, per ${runTime(history.stepMs).replace(/\.0/, '')}:\n${historyTable(history)}`, json };
}
