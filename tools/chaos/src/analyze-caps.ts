import type { LedgerEntry } from './ledger.ts';

/** What the concurrency checks found. */
export interface CapFindings {
  /** Instants where more `capped` handlers ran at once than its cap allows. */
  readonly capViolations: readonly string[];
  /** Instants where two handlers of one group ran at once. */
  readonly groupCapViolations: readonly string[];
  /** The most `capped` handlers seen running at once. */
  readonly maxCappedRunning: number;
  /** The most handlers of one group seen running at once. */
  readonly maxGroupRunning: number;
  /** Executions of the limited kinds counted in the checks. */
  readonly checkedExecutions: number;
}

/** Options of {@link analyzeCaps}. */
export interface CapChecks {
  /** The kind under a concurrency cap, and the cap. */
  readonly cappedKind: string;
  readonly cap: number;
  /** The cap of each group. */
  readonly groupCap: number;
  /** When the run SIGKILLed each worker process (by pid, Unix ms, taken after the kill). */
  readonly kills: ReadonlyMap<number, number>;
}

interface Run {
  id: string;
  kind?: string;
  group?: string;
  start: number;
  end?: number;
  outcome?: string;
  pid: number;
}

/**
 * Counts, from the workers' ledgers, how many handlers of the capped kind (and of each group)
 * ran at once. A cap holds over leases, so only executions known to hold their lease while the
 * handler ran count: those whose outcome Redis accepted (their claim held from the claim to the
 * outcome), and those of a SIGKILLed worker, up to the kill (the lease outlives the process, so
 * the slot stays taken at least that long). An execution whose claim was lost (a lease that
 * lapsed during a Redis pause, say) may legitimately overlap the next holder of its slot, and
 * one whose outcome never reached Redis cannot be placed: neither counts. The ledgers' clocks
 * are the one machine's clock, and a handler's end is written before its outcome is sent, so an
 * execution that takes over a slot always starts at or after the end of the one that freed it.
 */
export function analyzeCaps(ledger: readonly LedgerEntry[], checks: CapChecks): CapFindings {
  const runs = new Map<string, Run>();
  for (const entry of ledger) {
    const key = `${entry.id}:${entry.pid}:${entry.attempt}`;
    const run = runs.get(key) ?? { id: entry.id, pid: entry.pid, start: Number.NaN };
    if (entry.e === 'start') {
      run.start = entry.t;
      if (entry.kind !== undefined) run.kind = entry.kind;
      if (entry.group !== undefined) run.group = entry.group;
    } else if (entry.e === 'end') run.end = entry.t;
    else run.outcome = entry.outcome;
    runs.set(key, run);
  }
  const intervals: { run: Run; from: number; to: number }[] = [];
  for (const run of runs.values()) {
    if (run.kind === undefined || Number.isNaN(run.start)) continue;
    const accepted = run.outcome === 'completed' || run.outcome === 'retrying' || run.outcome === 'failed';
    const killedAt = checks.kills.get(run.pid);
    if (accepted && run.end !== undefined) intervals.push({ run, from: run.start, to: run.end });
    else if (run.outcome === undefined && killedAt !== undefined) intervals.push({ run, from: run.start, to: Math.max(run.start, run.end ?? killedAt) });
  }
  const capped = overlaps(intervals.filter(({ run }) => run.kind === checks.cappedKind), checks.cap, checks.cappedKind);
  const byGroup = new Map<string, typeof intervals>();
  for (const interval of intervals) {
    if (interval.run.group === undefined) continue;
    byGroup.set(interval.run.group, [...(byGroup.get(interval.run.group) ?? []), interval]);
  }
  const groupCapViolations: string[] = [];
  let maxGroupRunning = 0;
  for (const [group, list] of byGroup) {
    const found = overlaps(list, checks.groupCap, `group ${group}`);
    groupCapViolations.push(...found.violations);
    maxGroupRunning = Math.max(maxGroupRunning, found.max);
  }
  return { capViolations: capped.violations, groupCapViolations, maxCappedRunning: capped.max, maxGroupRunning, checkedExecutions: intervals.length };
}

/** Sweeps the intervals in time order (an end before a start at the same ms) and reports each time more than `cap` are open. */
function overlaps(intervals: readonly { run: Run; from: number; to: number }[], cap: number, what: string): { violations: string[]; max: number } {
  const events = intervals.flatMap(({ run, from, to }) => [
    { t: from, delta: 1, id: run.id },
    { t: to, delta: -1, id: run.id },
  ]);
  events.sort((a, b) => a.t - b.t || a.delta - b.delta);
  const open = new Map<string, number>();
  const violations: string[] = [];
  let running = 0;
  let max = 0;
  for (const event of events) {
    running += event.delta;
    open.set(event.id, (open.get(event.id) ?? 0) + event.delta);
    if (open.get(event.id) === 0) open.delete(event.id);
    max = Math.max(max, running);
    if (event.delta > 0 && running > cap) violations.push(`${what}: ${running} running at ${event.t} (cap ${cap}): ${[...open.keys()].join(', ')}`);
  }
  return { violations, max };
}
