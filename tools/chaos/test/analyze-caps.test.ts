import { describe, expect, test } from 'vitest';
import { analyzeCaps } from '../src/analyze-caps.ts';
import type { LedgerEntry } from '../src/ledger.ts';

/** One execution's ledger lines: start, end (unless `end` is null) and report (unless `outcome` is null). */
function run(id: string, pid: number, start: number, end: number | null, outcome: 'completed' | 'lost' | null, extra: { kind: string; group?: string }): LedgerEntry[] {
  const lines: LedgerEntry[] = [{ e: 'start', id, attempt: 1, pid, t: start, ...extra }];
  if (end !== null) lines.push({ e: 'end', id, attempt: 1, pid, t: end });
  if (outcome !== null) lines.push({ e: 'report', id, attempt: 1, pid, t: (end ?? start) + 1, outcome });
  return lines;
}

const checks = { cappedKind: 'capped', cap: 2, groupCap: 1, kills: new Map<number, number>() };

describe('the chaos run’s cap checks', () => {
  test('three accepted executions of a kind capped at 2 that overlap are a violation; back-to-back ones are not', () => {
    const capped = { kind: 'capped' };
    const backToBack = [...run('a', 1, 0, 10, 'completed', capped), ...run('b', 2, 0, 10, 'completed', capped), ...run('c', 3, 10, 20, 'completed', capped)];
    expect(analyzeCaps(backToBack, checks)).toMatchObject({ capViolations: [], maxCappedRunning: 2, checkedExecutions: 3 });
    const three = [...run('a', 1, 0, 10, 'completed', capped), ...run('b', 2, 0, 10, 'completed', capped), ...run('c', 3, 9, 20, 'completed', capped)];
    const found = analyzeCaps(three, checks);
    expect(found.maxCappedRunning).toBe(3);
    expect(found.capViolations).toHaveLength(1);
  });

  test('a killed worker’s execution holds its group’s slot until the kill; a lost claim’s does not count', () => {
    const g = { kind: 'grouped', group: 'g0' };
    const killed = [...run('a', 1, 0, null, null, g), ...run('b', 2, 5, 8, 'completed', g)];
    expect(analyzeCaps(killed, { ...checks, kills: new Map([[1, 20]]) }).groupCapViolations).toHaveLength(1);
    expect(analyzeCaps(killed, { ...checks, kills: new Map([[1, 4]]) }).groupCapViolations).toEqual([]);
    const lost = [...run('a', 1, 0, 30, 'lost', g), ...run('b', 2, 5, 8, 'completed', g)];
    expect(analyzeCaps(lost, checks)).toMatchObject({ groupCapViolations: [], checkedExecutions: 1 });
    const otherGroup = [...run('a', 1, 0, 10, 'completed', g), ...run('b', 2, 5, 8, 'completed', { kind: 'grouped', group: 'g1' })];
    expect(analyzeCaps(otherGroup, checks)).toMatchObject({ groupCapViolations: [], maxGroupRunning: 1 });
  });
});
