import { startRedisCluster, startRedisServer } from '@jobs/dev-redis';
import { FOREIGN_LIBRARY_WARNING, FUNCTION_LIBRARY, loadLibrary } from '@jobs/core/internal';
import { createProducer, defineKinds } from '@jobs/producer';
import { Queue, jobsAclRules, jobsOperatorAclRules } from '@jobs/reclaimer';
import { isClusterRun, onEveryNode, openRedis, queueKeysIn, redisTest as test, uniqueQueueName, urlWithUser, waitFor, within, type TestRedis } from '@jobs/testing';
import { createWorker } from '@jobs/worker';
import { once } from 'node:events';
import { Cluster, Redis } from 'ioredis';
import { describe, expect } from 'vitest';

const kinds = defineKinds({ charge: { schema: { type: 'object', properties: { card: { type: 'string' } }, required: ['card'] } } });

/** Tenant B's jobs: enqueued, run and checked by B's own producer and worker. */
async function runTenantJobs(url: string, queue: string, count: number): Promise<{ ids: string[]; results: unknown[] }> {
  const producer = createProducer({ redis: url, queue, kinds });
  const worker = createWorker({ redis: url, queue, kinds, handlers: { charge: ({ card }) => `charged ${card}` } });
  try {
    const ids = await Promise.all(Array.from({ length: count }, (_, i) => producer.enqueue('charge', { card: `4242-${queue}-${i}` })));
    const results = await within(Promise.all(ids.map((id) => producer.waitForResult(id))), 20_000, () => "B's jobs finishing");
    return { ids, results };
  } finally {
    await Promise.all([worker.close(), producer.close()]);
  }
}

/** Our library with a line added to every function: it writes a marker key in the caller's queue. */
function doctoredLibrary(name: string = FUNCTION_LIBRARY.name): string {
  const marker = "redis.pcall('SET', string.match(KEYS[1] or '', '^queue:{[^}]+}:') .. 'doctored', '1')";
  return FUNCTION_LIBRARY.source.replaceAll(FUNCTION_LIBRARY.name, name).replaceAll('callback = function(KEYS, ARGV)\n', `callback = function(KEYS, ARGV)\n${marker}\n`);
}

async function libraryCodeOn(admin: Redis): Promise<string | undefined> {
  const reply = (await admin.call('FUNCTION', 'LIST', 'LIBRARYNAME', FUNCTION_LIBRARY.name, 'WITHCODE')) as unknown[][];
  const entry = reply.find((fields) => fields[1] === FUNCTION_LIBRARY.name);
  return entry === undefined ? undefined : String(entry[entry.indexOf('library_code') + 1]);
}

async function fcallsOn(admin: Redis): Promise<number> {
  return Number(/cmdstat_fcall:calls=(\d+)/.exec(String(await admin.info('commandstats')))?.[1] ?? 0);
}

/** Every request tenant A may try against B; each must be refused by the ACL. */
function attacks(userB: string, bEvents: string, bJobKey: string): (readonly string[])[] {
  return [
    ['FUNCTION', 'LOAD', 'REPLACE', doctoredLibrary()],
    ['FUNCTION', 'LOAD', doctoredLibrary('jobs_0000000000000000')],
    ['FUNCTION', 'DELETE', FUNCTION_LIBRARY.name],
    ['FUNCTION', 'FLUSH'],
    ['FUNCTION', 'DUMP'],
    ['FUNCTION', 'RESTORE', 'x', 'REPLACE'],
    ['SCRIPT', 'FLUSH'],
    ['SCRIPT', 'KILL'],
    ['CLIENT', 'PAUSE', '1000', 'WRITE'],
    ['CLIENT', 'UNPAUSE'],
    ['CLIENT', 'KILL', 'USER', userB],
    ['CLIENT', 'KILL', 'ID', '1'],
    ['CLIENT', 'LIST'],
    ['CLIENT', 'INFO'],
    ['CLIENT', 'NO-EVICT', 'on'],
    ['CLIENT', 'TRACKING', 'on'],
    ['CLIENT', 'UNBLOCK', '1'],
    ['SCAN', '0'],
    ['KEYS', '*'],
    ['RANDOMKEY'],
    ['DBSIZE'],
    ['INFO'],
    ['INFO', 'keyspace'],
    ['INFO', 'clients'],
    ['PUBSUB', 'CHANNELS'],
    ['PUBSUB', 'NUMSUB', bEvents],
    ['PUBSUB', 'NUMPAT'],
    ['PUBSUB', 'SHARDCHANNELS'],
    ['PUBSUB', 'SHARDNUMSUB', bEvents],
    ['PUBLISH', bEvents, '{"id":"x","status":"completed"}'],
    ['MONITOR'],
    ['CONFIG', 'GET', '*'],
    ['ACL', 'LIST'],
    ['ACL', 'LOG'],
    ['CLUSTER', 'NODES'],
    ['FLUSHALL'],
    ['FLUSHDB'],
    ['SWAPDB', '0', '1'],
    ['HGETALL', bJobKey],
    ['OBJECT', 'ENCODING', bJobKey],
    ['DEL', bJobKey],
    ['EVAL', "return redis.call('HGETALL', KEYS[1])", '1', bJobKey],
  ];
}

async function makeUser(redis: TestRedis, user: string, password: string, rules: string[]): Promise<void> {
  // A cluster does not share its users: every node (replicas too) must know this one.
  await onEveryNode(redis, (node) => node.acl('SETUSER', user, 'reset', 'on', `>${password}`, ...rules));
}

describe('tenants cannot reach each other', () => {
  test("tenant A's every attack is refused, and tenant B's jobs run on untouched data", async ({ redis, redisUrl }) => {
    const qa = uniqueQueueName('qa');
    const qb = uniqueQueueName('qb');
    const [userA, userB] = [`tenant-${qa}`, `tenant-${qb}`];
    await makeUser(redis, userA, 'pw-a', jobsAclRules([qa]));
    await makeUser(redis, userB, 'pw-b', jobsAclRules([qb]));
    const urlB = urlWithUser(redisUrl, userB, 'pw-b');
    const a = openRedis(urlWithUser(redisUrl, userA, 'pw-a'), { maxRetriesPerRequest: 1, commandTimeout: 8_000, enableReadyCheck: false });
    const subscriberA = openRedis(urlWithUser(redisUrl, userA, 'pw-a'), { maxRetriesPerRequest: 1, commandTimeout: 8_000, enableReadyCheck: false });
    const admin = new Queue({ redis: urlB, queue: qb, kinds });
    try {
      const before = await runTenantJobs(urlB, qb, 5);
      expect(before.results).toEqual(before.ids.map((_, i) => `charged 4242-${qb}-${i}`));
      const { keys } = admin;
      // B's worker heartbeats into B's registry and B's user reads it; A can read none of it.
      const workerB = createWorker({ redis: urlB, queue: qb, kinds, heartbeatIntervalMs: 200, handlers: { charge: () => 'ok' } });
      const workerErrors: unknown[] = [];
      workerB.on('error', (error) => workerErrors.push(error));
      const registered = await waitFor(async () => (await admin.workers())[0], { what: "B's worker in B's registry" });
      expect(registered).toMatchObject({ id: workerB.id, kinds: ['charge'] });
      const registry = [['ZRANGE', keys.workers, '0', '-1'], ['HGETALL', keys.worker(workerB.id)]];
      for (const attack of [...attacks(userB, keys.events, `${keys.jobPrefix}${before.ids[0] as string}`), ...registry]) {
        const [command, ...args] = attack as [string, ...string[]];
        await expect(a.call(command, ...args), attack.join(' ').slice(0, 60)).rejects.toThrow(/NOPERM|permissions/);
      }
      await expect(subscriberA.subscribe(keys.events)).rejects.toThrow(/NOPERM/);
      await expect(subscriberA.call('PSUBSCRIBE', '*')).rejects.toThrow(/NOPERM/);
      await within(workerB.close(), 15_000, () => "B's worker closing");
      expect(await admin.workers()).toEqual([]);
      expect(workerErrors).toEqual([]);

      // B's calls still run our code on B's untouched data, and nothing of B's reached A's keys.
      const after = await runTenantJobs(urlB, qb, 5);
      expect(after.results).toEqual(after.ids.map((_, i) => `charged 4242-${qb}-${i}`));
      // Batches of completions, whose scripts would ask PUBSUB NUMSUB for a user allowed it.
      await admin.enqueueMany([1, 2, 3, 4].map((i) => ({ kind: 'charge', payload: { card: `batch-${i}` } })));
      const claimed = await admin.claim({ max: 2 });
      expect(await admin.completeMany(claimed.map((job) => ({ job, result: 'ok' })))).toEqual([true, true]);
      const rest = await admin.claim({ max: 2 });
      expect((await admin.completeManyAndClaim(rest.map((job) => ({ job, result: 'ok' })), { max: 1 })).outcomes).toEqual([{ status: 'completed' }, { status: 'completed' }]);
      const stats = await admin.stats();
      expect(stats.completedTotal).toBe(14);
      for (const [i, id] of before.ids.entries()) expect(await admin.getJob(id)).toMatchObject({ status: 'completed', payload: { card: `4242-${qb}-${i}` } });
      expect(await queueKeysIn(redis, qa)).toEqual([]);
      expect((await queueKeysIn(redis, qb)).some((key) => key.endsWith(':doctored'))).toBe(false);
    } finally {
      a.disconnect();
      subscriberA.disconnect();
      await admin.close();
      await onEveryNode(redis, (node) => node.acl('DELUSER', userA, userB));
    }
  });

  // Starts a redis-server of its own: a library loaded there reaches no other test.
  test.skipIf(isClusterRun())("on a fresh server A cannot load a library first; B runs through EVALSHA until the operator's user loads ours", async () => {
    const server = await startRedisServer({ name: 'tenants-fresh' });
    const root = new Redis(server.url, { maxRetriesPerRequest: 1 });
    try {
      await makeUser(root, 'tenant-a', 'pw-a', jobsAclRules(['qa']));
      await makeUser(root, 'tenant-b', 'pw-b', jobsAclRules(['qb']));
      await makeUser(root, 'jobs-operator', 'pw-op', jobsOperatorAclRules());
      const a = new Redis(urlWithUser(server.url, 'tenant-a', 'pw-a'), { maxRetriesPerRequest: 1, enableReadyCheck: false });
      await expect(a.call('FUNCTION', 'LOAD', doctoredLibrary())).rejects.toThrow(/NOPERM/);
      a.disconnect();

      const urlB = urlWithUser(server.url, 'tenant-b', 'pw-b');
      const first = await runTenantJobs(urlB, 'qb', 3);
      expect(first.results).toEqual(['charged 4242-qb-0', 'charged 4242-qb-1', 'charged 4242-qb-2']);
      expect(await libraryCodeOn(root)).toBeUndefined();
      expect(await fcallsOn(root)).toBe(0);

      const operator = new Redis(urlWithUser(server.url, 'jobs-operator', 'pw-op'), { maxRetriesPerRequest: 1 });
      expect(await loadLibrary(operator)).toMatchObject([{ found: 'missing', loaded: true }]);
      operator.disconnect();
      expect(await libraryCodeOn(root)).toBe(FUNCTION_LIBRARY.source);
      const second = await runTenantJobs(urlB, 'qb', 3);
      expect(second.results).toEqual(['charged 4242-qb-0', 'charged 4242-qb-1', 'charged 4242-qb-2']);
      expect(await fcallsOn(root)).toBeGreaterThan(0);
    } finally {
      root.disconnect();
      await server.stop();
    }
  });

  // Starts a redis-server of its own: the doctored library must reach no other test.
  test.skipIf(isClusterRun())('a library under our name that is not byte-for-byte ours is never run nor replaced: clients warn and use EVALSHA', async () => {
    const server = await startRedisServer({ name: 'tenants-doctored' });
    const root = new Redis(server.url, { maxRetriesPerRequest: 1 });
    const warnings: (Error & { code?: string })[] = [];
    const onWarning = (warning: Error & { code?: string }): void => {
      if (warning.code === FOREIGN_LIBRARY_WARNING) warnings.push(warning);
    };
    process.on('warning', onWarning);
    try {
      await root.call('FUNCTION', 'LOAD', doctoredLibrary());
      await makeUser(root, 'tenant-b', 'pw-b', jobsAclRules(['qb']));
      // The default user, which could replace it, and a tenant's user, which could not.
      for (const url of [server.url, urlWithUser(server.url, 'tenant-b', 'pw-b')]) {
        const run = await runTenantJobs(url, 'qb', 3);
        expect(run.results).toEqual(['charged 4242-qb-0', 'charged 4242-qb-1', 'charged 4242-qb-2']);
      }
      expect(await root.exists('queue:{qb}:doctored')).toBe(0);
      expect(await fcallsOn(root)).toBe(0);
      expect(await libraryCodeOn(root)).toBe(doctoredLibrary());
      await expect.poll(() => warnings.length).toBeGreaterThan(0);
      expect(warnings[0]?.message).toContain(FUNCTION_LIBRARY.name);

      // The operator's step puts ours back only when told to replace.
      expect(await loadLibrary(root)).toMatchObject([{ found: 'foreign', loaded: false }]);
      expect(await loadLibrary(root, { replace: true })).toMatchObject([{ found: 'foreign', loaded: true }]);
      expect(await libraryCodeOn(root)).toBe(FUNCTION_LIBRARY.source);
      await runTenantJobs(server.url, 'qb', 1);
      expect(await fcallsOn(root)).toBeGreaterThan(0);
      expect(await root.exists('queue:{qb}:doctored')).toBe(0);
    } finally {
      process.off('warning', onWarning);
      root.disconnect();
      await server.stop();
    }
  });
  // Starts a redis-server of its own: the doctored library must reach no other test.
  test.skipIf(isClusterRun())('a client reads the library again after a reconnect: one replaced meanwhile is not run', async () => {
    const server = await startRedisServer({ name: 'tenants-reconnect' });
    const root = new Redis(server.url, { maxRetriesPerRequest: 1 });
    const queue = new Queue({ redis: server.url, queue: 'qb', kinds });
    const ignore = (): void => undefined;
    process.on('warning', ignore);
    try {
      await queue.enqueue('charge', { card: 'before' });
      expect(await fcallsOn(root)).toBeGreaterThan(0);
      // As a restart would: the library changes while the client is away.
      const reconnected = once(queue.client, 'ready');
      await root.multi().call('FUNCTION', 'FLUSH').call('FUNCTION', 'LOAD', doctoredLibrary()).call('CLIENT', 'KILL', 'SKIPME', 'yes').exec();
      await within(reconnected, 10_000, () => 'the queue reconnecting');
      const fcalls = await fcallsOn(root);
      await queue.enqueue('charge', { card: 'after' });
      const [job] = await queue.claim({ max: 1 });
      expect(job).toBeDefined();
      await queue.complete(job as NonNullable<typeof job>, 'ok');
      expect(await fcallsOn(root)).toBe(fcalls);
      expect(await root.exists('queue:{qb}:doctored')).toBe(0);
    } finally {
      process.off('warning', ignore);
      await queue.close();
      root.disconnect();
      await server.stop();
    }
  });
  // Starts a cluster of its own (once, in the single-server pass): a doctored library on one of
  // its masters must reach no other test.
  test.skipIf(isClusterRun())('on a cluster the library is checked on every master: one doctored master sends every script through EVALSHA', async () => {
    const cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 0 });
    const ports = (await cluster.masters()).map((master) => master.port);
    const masters = ports.map((port) => new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1 }));
    const ignore = (): void => undefined;
    process.on('warning', ignore);
    try {
      await Promise.all(masters.map((master, i) => master.call('FUNCTION', 'LOAD', i === 0 ? doctoredLibrary() : FUNCTION_LIBRARY.source)));
      // Queues on every master (their hash tags spread over the slots).
      for (const queue of ['qa', 'qb', 'qc', 'qd', 'qe', 'qf']) {
        const run = await runTenantJobs(cluster.url, queue, 2);
        expect(run.results).toEqual([`charged 4242-${queue}-0`, `charged 4242-${queue}-1`]);
      }
      const fcalls = await Promise.all(masters.map(fcallsOn));
      expect(fcalls).toEqual([0, 0, 0]);
      for (const master of masters) expect(await master.keys('*doctored*')).toEqual([]);

      // The operator's step replaces it on that master alone; then FCALL runs everywhere.
      const operator = new Cluster([...cluster.seeds]);
      const loads = await loadLibrary(operator, { replace: true });
      operator.disconnect();
      expect(loads.map((load) => load.found).sort()).toEqual(['foreign', 'ours', 'ours']);
      for (const queue of ['qa', 'qb', 'qc', 'qd', 'qe', 'qf']) await runTenantJobs(cluster.url, queue, 1);
      expect((await Promise.all(masters.map(fcallsOn))).every((count) => count > 0)).toBe(true);
    } finally {
      process.off('warning', ignore);
      for (const master of masters) master.disconnect();
      await cluster.stop();
    }
  });
});
