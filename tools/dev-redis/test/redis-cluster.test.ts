import { existsSync } from 'node:fs';
import { Cluster } from 'ioredis';
import { describe, expect, test } from 'vitest';
import { onNode, startRedisCluster, type RedisCluster, type SlotRange } from '../src/index.ts';
import { hashSlot, keyForEverySlot } from './hash-slot.ts';

/** Runs `body` against a fresh cluster and stops the cluster whatever happens. */
async function withCluster(body: (cluster: RedisCluster) => Promise<void>): Promise<void> {
  const cluster = await startRedisCluster();
  try {
    await body(cluster);
  } finally {
    await cluster.stop();
  }
}

const inRanges = (slot: number, ranges: readonly SlotRange[]): boolean => ranges.some(([start, end]) => slot >= start && slot <= end);

/** The keys' hash slots, as the node on `port` computes them (CLUSTER KEYSLOT). */
function slotsOf(port: number, keys: readonly string[]): Promise<number[]> {
  return onNode(port, (client) => Promise.all(keys.map((key) => client.cluster('KEYSLOT', key))));
}

// Each test starts its own six-node cluster (about 2 s); two wait for a failover (about 3 s).
describe('startRedisCluster', { timeout: 60_000 }, () => {
  test('a started cluster serves keys of every slot through any seed', async () => {
    await withCluster(async (cluster) => {
      expect(cluster.seeds).toHaveLength(6);
      expect(cluster.url).toBe(`redis+cluster://${cluster.seeds.map(({ host, port }) => `${host}:${port}`).join(',')}`);
      expect(cluster.nodes.filter((node) => node.role === 'master')).toHaveLength(3);
      const masterPorts = cluster.nodes.filter((node) => node.role === 'master').map((node) => node.port);
      for (const replica of cluster.nodes.filter((node) => node.role === 'replica')) expect(masterPorts).toContain(replica.replicaOf);

      const masters = await cluster.masters();
      expect(masters.map((master) => master.port).sort()).toEqual([...masterPorts].sort());
      expect(masters.flatMap((master) => master.slots).reduce((sum, [start, end]) => sum + end - start + 1, 0)).toBe(16_384);

      // One key in each of the 16384 slots, each with its own hash tag. Our slot function must
      // agree with the server's, or the checks below would prove nothing.
      const keys = keyForEverySlot();
      const sample = keys.filter((_, slot) => slot % 1_000 === 0);
      expect(await slotsOf(masters[0]!.port, sample)).toEqual(sample.map(hashSlot));

      // Written through a client that knows only the first seed, read back through each of the others.
      const writer = new Cluster([cluster.seeds[0]!]);
      await Promise.all(keys.map((key) => writer.set(key, key)));
      writer.disconnect();
      for (const seed of cluster.seeds.slice(1)) {
        const reader = new Cluster([seed]);
        expect(await Promise.all(keys.map((key) => reader.get(key)))).toEqual(keys);
        reader.disconnect();
      }

      // Each master holds exactly the keys of the slots it owns, one in each.
      let stored = 0;
      for (const master of masters) {
        const owned = keys.map((_, slot) => slot).filter((slot) => inRanges(slot, master.slots));
        await onNode(master.port, async (client) => {
          expect(await client.dbsize()).toBe(owned.length);
          const counts = await Promise.all(owned.map((slot) => client.cluster('COUNTKEYSINSLOT', slot)));
          expect(counts.every((count) => count === 1)).toBe(true);
        });
        stored += owned.length;
      }
      expect(stored).toBe(16_384);
    });
  });

  test('killing a master promotes its replica and the cluster serves again', async () => {
    await withCluster(async (cluster) => {
      const [victim] = await cluster.masters();
      // A key in the first slot the victim serves: its writes must move to the promoted replica.
      const key = keyForEverySlot()[victim!.slots[0]![0]]!;
      const replicaOfVictim = cluster.nodes.find((node) => node.replicaOf === victim!.port)!.port;

      const dead = await cluster.killMaster(victim!.port);
      expect(dead).toBe(victim!.port);
      const promoted = await cluster.waitForFailover(dead, 20_000);
      expect(promoted).toBe(replicaOfVictim);

      const masters = await cluster.masters();
      expect(masters.map((master) => master.port)).not.toContain(dead);
      expect(masters.find((master) => master.port === promoted)?.slots).toEqual(victim!.slots);

      const client = new Cluster(cluster.seeds.filter((seed) => seed.port !== dead));
      expect(await client.set(key, 'after failover')).toBe('OK');
      expect(await client.get(key)).toBe('after failover');
      client.disconnect();
      expect(await onNode(promoted, (direct) => direct.get(key))).toBe('after failover');
    });
  });

  test('a killed master restarted after its failover comes back as a replica of its heir, with the data', async () => {
    const cluster = await startRedisCluster();
    try {
      const [victim] = await cluster.masters();
      const key = keyForEverySlot()[victim!.slots[0]![0]]!;
      const client = new Cluster(cluster.seeds.filter((seed) => seed.port !== victim!.port));
      await client.set(key, 'before');
      await cluster.killMaster(victim!.port);
      const heir = await cluster.waitForFailover(victim!.port);
      await client.set(key, 'after failover');
      client.disconnect();

      const firstPid = cluster.nodes.find((node) => node.port === victim!.port)!.server.pid;
      await cluster.restartNode(victim!.port);
      const node = cluster.nodes.find((candidate) => candidate.port === victim!.port)!;
      expect(node.server.pid).not.toBe(firstPid);
      const replication = await onNode(victim!.port, (direct) => direct.info('replication'));
      expect(replication).toMatch(/role:slave/);
      expect(replication).toContain(`master_port:${heir}`);
      expect(replication).toMatch(/master_link_status:up/);
      // Its slots stay with the heir, and it holds the heir's data, written while it was down.
      expect((await cluster.masters()).find((master) => master.port === heir)?.slots).toEqual(victim!.slots);
      expect(await onNode(victim!.port, async (direct) => {
        await direct.call('READONLY');
        return direct.get(key);
      })).toBe('after failover');
      await expect(cluster.restartNode(victim!.port)).rejects.toThrow(/not a node of this cluster that killMaster killed/);
    } finally {
      await cluster.stop();
    }
    for (const { server } of cluster.nodes) {
      expect(() => process.kill(server.pid, 0)).toThrow();
      expect(existsSync(server.dataDir)).toBe(false);
    }
  });

  test('stop leaves no redis-server running', async () => {
    const cluster = await startRedisCluster();
    // A crashed node too: stop must still clear its data folder.
    await cluster.killMaster();
    await cluster.stop();
    for (const { server } of cluster.nodes) {
      expect(() => process.kill(server.pid, 0)).toThrow();
      expect(existsSync(server.dataDir)).toBe(false);
    }
    await cluster.stop();
  });
});
