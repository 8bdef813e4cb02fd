import { describe, expect, test } from 'vitest';
import { clusterReport, runClusterBench } from '../src/cluster-bench.ts';

describe('cluster benchmark smoke run (tiny sizes; figures mean nothing, completion does)', () => {
  test('plain and partitioned queues both run on a real cluster, and every partition has a master', async () => {
    const run = await runClusterBench({ n: 200, reps: 1, partitions: 4 });
    for (const result of [...run.single, ...run.partitioned]) {
      expect(result.enqueueRate).toBeGreaterThan(0);
      expect(result.processRate).toBeGreaterThan(0);
      expect(result.workerStartMs).toBeGreaterThan(0);
      // Every job costs the servers something: a figure of zero would mean the CPU was not read.
      expect(result.enqueueRedisCpuUs).toBeGreaterThan(0);
      expect(result.processRedisCpuUs).toBeGreaterThan(0);
      expect(result.enqueueNodeCpuUs).toBeGreaterThan(0);
      expect(result.processNodeCpuUs).toBeGreaterThan(0);
    }
    // The plain queue's scripts ran on one master; the partitions' on their masters.
    expect(Object.values(run.single[0]?.scriptCallsByMaster ?? {}).filter((calls) => calls > 0)).toHaveLength(1);
    expect(run.placement.flatMap((master) => master.partitions).sort()).toEqual(['bench-parted:p0', 'bench-parted:p1', 'bench-parted:p2', 'bench-parted:p3']);
    expect(clusterReport(run)).toContain('| partitioned / plain |');
    expect(clusterReport(run)).toMatch(/\| the same, repetition by repetition \| \d+\.\d\dx \(/);
    expect(clusterReport(run)).toContain('events on (the default');
    expect(clusterReport(run)).toMatch(/\| partitioned \/ plain \| \d+\.\d\dx \| \d+\.\d\dx \| \d+\.\d\dx \| \d+\.\d\dx \|/);
    expect(clusterReport(run)).toContain('| CPU per job | enqueue: Node | enqueue: Redis | process: Node | process: Redis |');
    expect(clusterReport(run)).toMatch(/start-up took \d+ ms for the plain queue and \d+ ms for the partitioned one/);
  }, 60_000);
});
