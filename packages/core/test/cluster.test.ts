import { isClusterRun, queueKeysIn, redisNodes, redisTest as test, uniqueQueueName, urlWithUser, within, type TestRedis } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { Queue, type ClaimedJob } from '../src/index.ts';
import { kinds, openQueue } from './fixtures.ts';

/** Which master (by port) serves each slot, from `CLUSTER SLOTS`. */
async function slotOwners(redis: TestRedis): Promise<(slot: number) => number> {
  const ranges = await redis.cluster('SLOTS');
  return (slot) => {
    // Each range is [start, end, master, ...replicas]; a node is [host, port, id, ...].
    const master = ranges.find(([start, end]) => slot >= start && slot <= end)?.[2];
    if (master === undefined) throw new Error(`no master serves slot ${slot}`);
    return master[1];
  };
}

// Only a cluster has masters to spread over; on one server every queue is on it by definition.
describe.skipIf(!isClusterRun())('on a Redis Cluster', () => {
  test("queues spread over every master and each queue's scripts run on its own node", async ({ redis }) => {
    const masters = await redisNodes(redis);
    const masterPorts = masters.map((node) => node.options.port);
    expect(masterPorts).toHaveLength(3);
    const ownerOf = await slotOwners(redis);

    // 30 queues, 10 whose slot each master serves: random names until every master has its 10.
    const perMaster = new Map<number, string[]>(masterPorts.map((port) => [port as number, []]));
    const slotOf = new Map<string, number>();
    while ([...perMaster.values()].some((names) => names.length < 10)) {
      const name = uniqueQueueName('spread');
      const slot = Number(await redis.cluster('KEYSLOT', `queue:{${name}}:pending`));
      const names = perMaster.get(ownerOf(slot));
      if (names !== undefined && names.length < 10) {
        names.push(name);
        slotOf.set(name, slot);
      }
    }
    const names = [...perMaster.values()].flat();
    expect(names).toHaveLength(30);

    // Each queue runs the recipe's verbs through one Cluster client; each verb is a script.
    const queues = names.map((name) => openQueue(redis, name));
    await Promise.all(
      queues.map(async (queue) => {
        const id = await queue.enqueue('email', { recipient: 'spread@example.com' });
        const [job] = (await queue.claim()) as [ClaimedJob];
        expect(job.id).toBe(id);
        await queue.complete(job, { ok: true });
        expect(await queue.stats()).toMatchObject({ enqueuedTotal: 1, completedTotal: 1, pendingDepth: 0, processingDepth: 0, completedDepth: 1 });
      }),
    );

    // Every key each queue has lives on the master that serves its slot, and on no other: a
    // script can only touch keys of the node it runs on, so that is where the scripts ran.
    for (const name of names) {
      const owner = ownerOf(slotOf.get(name) as number);
      const slots = new Set(await Promise.all((await queueKeysIn(redis, name)).map(async (key) => Number(await redis.cluster('KEYSLOT', key)))));
      expect(slots).toEqual(new Set([slotOf.get(name)]));
      for (const node of masters) {
        let found = 0;
        let cursor = '0';
        do {
          const [next, keys] = await node.scan(cursor, 'MATCH', `queue:{${name}}:*`, 'COUNT', 1000);
          cursor = next;
          found += keys.length;
        } while (cursor !== '0');
        if (node.options.port === owner) {
          expect(found, `${name} on its master ${owner}`).toBeGreaterThan(0);
          // The counters only the scripts write, read straight from that master.
          expect(await node.hget(`queue:{${name}}:stats`, 'completed_total')).toBe('1');
        } else {
          expect(found, `${name} on master ${node.options.port}, which does not serve its slot`).toBe(0);
        }
      }
    }
    // ...so all three masters ran scripts and hold queues.
    const used = new Set(names.map((name) => ownerOf(slotOf.get(name) as number)));
    expect([...used].sort()).toEqual([...masterPorts].sort());

    // purge finds each queue's keys on its own master.
    for (const queue of queues) {
      expect(await queue.purge()).toBeGreaterThan(0);
      expect(await queueKeysIn(redis, queue.name)).toEqual([]);
      await queue.close();
    }
  });

  test('a cluster whose nodes all refuse the credentials fails a call at once with JOBS_REDIS_AUTH, not after the timeout', async ({ redisUrl, queueName }) => {
    // A command timeout far past the deadline below: a call that waited for it could not pass.
    const queue = new Queue({ redis: urlWithUser(redisUrl, 'nobody', 'wrong-horse'), queue: queueName, kinds, commandTimeoutMs: 120_000 });
    const error = await within(queue.enqueue('email', { recipient: 'a@example.com' }).catch((e: unknown) => e), 15_000, () => 'the call waited for its command timeout');
    expect(error).toMatchObject({ code: 'JOBS_REDIS_AUTH', message: expect.stringMatching(/WRONGPASS/) });
    expect(String(error)).not.toContain('wrong-horse');
    await queue.close();
  });
});
