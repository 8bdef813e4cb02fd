import { onNode, startRedisCluster, type RedisCluster } from '@jobs/dev-redis';
import { waitFor } from '@jobs/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Queue, type ClaimedJob } from '../src/index.ts';
import { kinds } from './fixtures.ts';

let cluster: RedisCluster;

beforeAll(async () => {
  cluster = await startRedisCluster();
}, 30_000);

afterAll(async () => {
  await cluster?.stop();
});

/** The port of the master serving `slot` now. */
async function masterOf(slot: number): Promise<number | undefined> {
  return (await cluster.masters()).find(({ slots }) => slots.some(([start, end]) => slot >= start && slot <= end))?.port;
}

describe('durable mode on a cluster', () => {
  test('after a failover that keeps the old master up (as a replica), enqueues and completions follow the slot to the new master', { timeout: 60_000 }, async () => {
    const queue = new Queue({ redis: cluster.url, queue: 'durable-moved', kinds, durability: { replicas: 1, timeoutMs: 2_000 }, commandTimeoutMs: 3_000 });
    const slot = await onNode(cluster.seeds[0]!.port, async (client) => Number(await client.cluster('KEYSLOT', 'queue:{durable-moved}:pending')));
    const before = (await masterOf(slot))!;
    await queue.enqueue('email', { recipient: 'a@example.com' });

    // A planned failover: the replica takes the slot over, the old master becomes its replica
    // and answers MOVED to a client that still has the old slot map.
    const heir = cluster.nodes.find((node) => node.replicaOf === before)!.port;
    await onNode(heir, (client) => client.cluster('FAILOVER'));
    await waitFor(async () => (await masterOf(slot)) === heir, { what: `slot ${slot} served by ${heir}`, timeoutMs: 20_000 });
    await waitFor(async () => /master_link_status:up/.test(await onNode(before, (client) => client.info('replication'))), { what: `${before} in sync`, timeoutMs: 20_000 });

    const id = await queue.enqueue('email', { recipient: 'b@example.com' });
    expect(await onNode(heir, (client) => client.hget(`queue:{durable-moved}:job:${id}`, 'status'))).toBe('pending');
    const [job] = (await queue.claim({ max: 1 })) as [ClaimedJob];
    const { outcomes, notReplicated } = await queue.completeManyAndClaim([{ job, result: 'done' }], { max: 0 });
    expect(outcomes).toEqual([{ status: 'completed' }]);
    expect(notReplicated).toBeUndefined();
    await queue.close();
  });

  test('mid-migration (ASK, then TRYAGAIN), a durable enqueue waits for the slot and lands on its new master', { timeout: 60_000 }, async () => {
    const name = 'durable-asked';
    const queue = new Queue({ redis: cluster.url, queue: name, kinds, durability: { replicas: 1, timeoutMs: 2_000 }, commandTimeoutMs: 5_000 });
    const key = `queue:{${name}}:pending`;
    const slot = await onNode(cluster.seeds[0]!.port, async (client) => Number(await client.cluster('KEYSLOT', key)));
    const source = (await masterOf(slot))!;
    const target = (await cluster.masters()).find((master) => master.port !== source)!.port;
    const idOf = (port: number): Promise<string> => onNode(port, async (client) => String(await client.cluster('MYID')));
    const [sourceId, targetId] = [await idOf(source), await idOf(target)];
    const errors = (port: number, reply: string): Promise<number> =>
      onNode(port, async (client) => Number(new RegExp(`errorstat_${reply}:count=(\\d+)`).exec(await client.info('errorstats'))?.[1] ?? 0));
    await queue.stats(); // connected, scripts loaded
    const [asks, tryAgains] = [await errors(source, 'ASK'), await errors(target, 'TRYAGAIN')];
    // The slot starts to move: the source answers ASK for keys it does not hold, and the target,
    // asked, answers TRYAGAIN to a script whose keys are not all there yet.
    await onNode(target, (client) => client.cluster('SETSLOT', slot, 'IMPORTING', sourceId));
    await onNode(source, (client) => client.cluster('SETSLOT', slot, 'MIGRATING', targetId));
    const enqueued = queue.enqueue('email', { recipient: 'a@example.com' });
    await waitFor(async () => (await errors(source, 'ASK')) > asks && (await errors(target, 'TRYAGAIN')) > tryAgains, { what: 'the enqueue redirected (ASK) and told to try again (TRYAGAIN)' });
    // The queue holds no keys yet, so nothing is left to copy: the move ends, as
    // redis-cli --cluster reshard ends one, by giving the slot to the target on both.
    await onNode(target, (client) => client.cluster('SETSLOT', slot, 'NODE', targetId));
    await onNode(source, (client) => client.cluster('SETSLOT', slot, 'NODE', targetId));
    const id = await enqueued;
    expect(await onNode(target, (client) => client.hget(`queue:{${name}}:job:${id}`, 'status'))).toBe('pending');
    expect(await onNode(source, (client) => client.cluster('COUNTKEYSINSLOT', slot))).toBe(0);
    await queue.close();
  });
});

