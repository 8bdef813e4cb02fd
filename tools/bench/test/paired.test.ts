import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { PAIRED_SCENARIOS, pairedTable, runPaired } from '../src/paired.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('paired comparison (tiny sizes; figures mean nothing, the pairing does)', () => {
  test('each scenario alternates blocks of both checkouts and sums only the measured blocks', async () => {
    // The other checkout is this one, loaded by path from its built packages.
    const results = await runPaired({ base: ROOT, blocks: 2, jobsPerBlock: 150 });
    expect(results.map((result) => result.scenario)).toEqual([...PAIRED_SCENARIOS]);
    for (const result of results) {
      expect(result.firstPerBlock).toEqual(['head', 'base']);
      for (const side of [result.head, result.base]) {
        // Two measured blocks of 150 jobs: the warm-up block is not counted.
        expect(side.jobs).toBe(300);
        expect(side.ms).toBeGreaterThan(0);
        expect(side.nodeCpuUs).toBeGreaterThan(0);
        expect(side.redisCpuUs).toBeGreaterThan(0);
      }
    }
    const table = pairedTable(results);
    expect(table.split('\n')).toHaveLength(2 + PAIRED_SCENARIOS.length);
    expect(table).toMatch(/\| process-64 \| [\d,]+\/s \| \d+\.\d \+ \d+\.\d \|/);
  }, 120_000);
});
