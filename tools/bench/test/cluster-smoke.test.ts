import { describe, expect, test } from 'vitest';
import { clusterReport, runClusterBench } from '../src/cluster-bench.ts';

describe('cluster benchmark smoke run (tiny sizes; figures mean nothing, completion does)', () => {
  test('plain and partitioned queues both run on a real cluster, every partition has a master, and each master\'s CPU adds up to the total', async () => {
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
      // Each phase's Redis CPU splits into every master's share and the replicas', which add up to it.
      const ports = run.placement.map((master) => master.port).sort();
      for (const [byMaster, replicas, total] of [
        [result.enqueueRedisCpuUsByMaster, result.enqueueReplicasCpuUs, result.enqueueRedisCpuUs],
        [result.processRedisCpuUsByMaster, result.processReplicasCpuUs, result.processRedisCpuUs],
      ] as const) {
        expect(Object.keys(byMaster).map(Number).sort()).toEqual(ports);
        for (const us of Object.values(byMaster)) expect(us).toBeGreaterThanOrEqual(0);
        expect(replicas).toBeGreaterThanOrEqual(0);
        expect(Object.values(byMaster).reduce((sum, us) => sum + us, 0) + replicas).toBeCloseTo(total, 6);
      }
    }
    expect(run.placement).toHaveLength(3);
    // The plain queue's scripts ran on one master; the partitions' on their masters.
    expect(Object.values(run.single[0]?.scriptCallsByMaster ?? {}).filter((calls) => calls > 0)).toHaveLength(1);
    expect(run.placement.flatMap((master) => master.partitions).sort()).toEqual(['bench-parted:p0', 'bench-parted:p1', 'bench-parted:p2', 'bench-parted:p3']);
    expect(clusterReport(run)).toContain('| partitioned / plain |');
    expect(clusterReport(run)).toMatch(/\| the same, repetition by repetition \| \d+\.\d\dx \(/);
    expect(clusterReport(run)).toContain('events on (the default');
    expect(clusterReport(run)).toMatch(/\| partitioned \/ plain \| \d+\.\d\dx \| \d+\.\d\dx \| \d+\.\d\dx \| \d+\.\d\dx \|/);
    expect(clusterReport(run)).toContain('| CPU per job | enqueue: Node | enqueue: Redis | process: Node | process: Redis |');
    const portColumns = run.placement.map((master) => `:${master.port}`).join(' | ');
    expect(clusterReport(run)).toContain(`| queue | phase | ${portColumns} | replicas | total |`);
    expect(clusterReport(run).match(/^\| (plain \(one slot\)|4 partitions) \| (enqueue|process) \|( \d+\.\d µs \|){5}$/gm)).toHaveLength(4);
    expect(clusterReport(run)).toMatch(/enqueue: plain \(one slot\) \d+\.\d µs \(:\d+\), ceiling [\d,]+ jobs\/s; 4 partitions \d+\.\d µs \(:\d+\), ceiling [\d,]+ jobs\/s \(\d+\.\d\dx the plain queue's\); process: /);
    expect(clusterReport(run)).toContain('The ceiling is an estimate from CPU per job, not a measured rate');
    expect(clusterReport(run)).toMatch(/start-up took \d+ ms for the plain queue and \d+ ms for the partitioned one/);
  }, 60_000);
});
