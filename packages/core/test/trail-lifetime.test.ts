import { queueKeysIn, redisTest as test, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { Queue, type ClaimedJob, type QueueOptions, type RedisClient } from '../src/index.ts';
import { TRAIL_IDLE_SECONDS } from '../src/generated/constants.ts';
import { kinds } from './fixtures.ts';
import { RecipeClient } from './recipe-client.ts';

/**
 * A job's trail (its attempts and log lines, beside its hash) must die with the hash on every
 * path that deletes or expires it: none of its keys may outlive the job.
 */
function open(redis: RedisClient, queueName: string, options: QueueOptions = {}) {
  return new Queue({ redis, queue: queueName, kinds, backoff: { type: 'fixed', delayMs: 0 }, maxAttempts: 5, ...options });
}
type TestQueue = ReturnType<typeof open>;

async function claimOne(queue: TestQueue): Promise<ClaimedJob> {
  const [job] = await queue.claim();
  if (job === undefined) throw new Error('nothing to claim');
  return job;
}

/** A job that failed once and logged a line: both trail keys exist. Returns it claimed again. */
async function withTrail(queue: TestQueue): Promise<ClaimedJob> {
  await queue.enqueue('email', { recipient: 'a@example.com' });
  const first = await claimOne(queue);
  await queue.appendLogs(first, [{ atMs: 1, line: 'first attempt' }]);
  await queue.fail(first, new Error('transient'), { retryDelayMs: 0 });
  const again = await claimOne(queue);
  expect(again.id).toBe(first.id);
  return again;
}

const trailKeys = (queue: TestQueue, id: string): string[] => [queue.keys.jobAttempts(id), queue.keys.jobLogs(id)];

/** The absolute expiry (ms) of each key: -1 none, -2 no key. */
async function expiries(redis: RedisClient, keys: string[]): Promise<number[]> {
  return Promise.all(keys.map(async (key) => Number(await redis.call('PEXPIRETIME', key))));
}

/**
 * The hash and its trail keys expire together: set in one script with the same TTL, so at most a
 * few milliseconds apart (a script's clock may tick between its EXPIREs).
 */
async function expectSameExpiry(redis: RedisClient, queue: TestQueue, id: string): Promise<void> {
  const [hash, ...trail] = await expiries(redis, [queue.keys.job(id), ...trailKeys(queue, id)]);
  expect(hash).toBeGreaterThan(0);
  expect(trail).toHaveLength(2);
  for (const at of trail) expect(Math.abs(at - (hash as number))).toBeLessThanOrEqual(5);
}

async function expectNoTrail(redis: RedisClient, queue: TestQueue, id: string): Promise<void> {
  expect(await redis.exists(queue.keys.job(id))).toBe(0);
  // Each key SCAN lists is looked up too: a lookup expires a key whose time has come.
  const listed = (await queueKeysIn(redis, queue.name)).filter((key) => key.includes(`:job:${id}`));
  const exists = await Promise.all([...trailKeys(queue, id), ...listed].map((key) => redis.exists(key)));
  expect(exists.every((count) => count === 0)).toBe(true);
}

describe("a job's trail lives and dies with its hash", () => {
  test('completed with a TTL: the trail expires with the hash, and is gone once it is', async ({ redis, queueName }) => {
    const queue = open(redis, queueName, { completedTtlSeconds: 1 });
    const job = await withTrail(queue);
    await queue.complete(job, 'ok');
    await expectSameExpiry(redis, queue, job.id);
    await waitFor(async () => (await redis.exists(queue.keys.job(job.id))) === 0, { timeoutMs: 10_000 });
    await expectNoTrail(redis, queue, job.id);
    await queue.close();
  });

  test('completed with no history kept: the trail is deleted with the hash', async ({ redis, queueName }) => {
    const queue = open(redis, queueName, { completedHistory: 0 });
    const job = await withTrail(queue);
    await queue.complete(job, 'ok');
    await expectNoTrail(redis, queue, job.id);
    await queue.close();
  });

  test('trimmed off the completed history: the trail goes with the hash', async ({ redis, queueName }) => {
    const queue = open(redis, queueName, { completedHistory: 1 });
    const job = await withTrail(queue);
    await queue.complete(job, 'ok');
    expect(await redis.exists(...trailKeys(queue, job.id))).toBe(2);
    await queue.enqueue('email', { recipient: 'b@example.com' });
    await queue.complete(await claimOne(queue), 'ok');
    await expectNoTrail(redis, queue, job.id);
    await queue.close();
  });

  test('dead-lettered with a failed TTL: the trail expires with the hash', async ({ redis, queueName }) => {
    const queue = open(redis, queueName, { failedTtlSeconds: 60 });
    const job = await withTrail(queue);
    await queue.fail(job, new Error('fatal'), { permanent: true });
    await expectSameExpiry(redis, queue, job.id);
    await queue.close();
  });

  test('reclaimed to the dead letters with a failed TTL: the trail expires with the hash', async ({ redis, queueName }) => {
    const queue = open(redis, queueName, { failedTtlSeconds: 60, maxAttempts: 2, visibilityMs: 30 });
    const job = await withTrail(queue);
    await waitFor(async () => (await queue.reclaimStuck()).deadLettered.includes(job.id), { timeoutMs: 10_000 });
    await expectSameExpiry(redis, queue, job.id);
    await queue.close();
  });

  test('removed by an operator: the trail is deleted with the hash', async ({ redis, queueName }) => {
    const queue = open(redis, queueName);
    const job = await withTrail(queue);
    await queue.fail(job, new Error('fatal'), { permanent: true });
    expect(await redis.exists(...trailKeys(queue, job.id))).toBe(2);
    expect(await queue.remove(job.id)).toEqual({ removed: true });
    await expectNoTrail(redis, queue, job.id);
    await queue.close();
  });

  test('trimmed off the failed history: the trail goes with the hash', async ({ redis, queueName }) => {
    const queue = open(redis, queueName, { failedHistory: 1 });
    const job = await withTrail(queue);
    await queue.fail(job, new Error('fatal'), { permanent: true });
    await queue.enqueue('email', { recipient: 'b@example.com' });
    await queue.fail(await claimOne(queue), new Error('fatal'), { permanent: true });
    await expectNoTrail(redis, queue, job.id);
    await queue.close();
  });

  test('cancelled while it waits for a retry: the trail expires with the hash', async ({ redis, queueName }) => {
    const queue = open(redis, queueName);
    const job = await withTrail(queue);
    await queue.fail(job, new Error('again'), { retryDelayMs: 3_600_000 });
    expect(await queue.cancel(job.id)).toMatchObject({ cancelled: true });
    await expectSameExpiry(redis, queue, job.id);
    await queue.close();
  });

  test("a flow's child cancelled with its parent: the child's trail expires with its hash", async ({ redis, queueName }) => {
    const queue = open(redis, queueName);
    const flow = await queue.enqueueFlow({ kind: 'email' as const, payload: { recipient: 'parent@example.com' }, children: [{ kind: 'email' as const, payload: { recipient: 'child@example.com' } }] });
    const childId = flow.children[0]?.id as string;
    const child = await claimOne(queue);
    expect(child.id).toBe(childId);
    await queue.appendLogs(child, [{ atMs: 1, line: 'child' }]);
    await queue.fail(child, new Error('later'), { retryDelayMs: 3_600_000 });
    expect(await queue.cancel(flow.id)).toMatchObject({ cancelled: true });
    expect((await queue.getJob(childId))?.status).toBe('cancelled');
    await expectSameExpiry(redis, queue, childId);
    await queue.close();
  });

  test('redriven from the dead letters: the hash loses its TTL, the trail holds as a waiting job\'s does, and keeps its attempts', async ({ redis, queueName }) => {
    const queue = open(redis, queueName, { failedTtlSeconds: 60 });
    const job = await withTrail(queue);
    await queue.fail(job, new Error('fatal'), { permanent: true });
    expect(await queue.retry([job.id])).toEqual([true]);
    expect(await redis.pttl(queue.keys.job(job.id))).toBe(-1);
    for (const key of trailKeys(queue, job.id)) expect(await redis.ttl(key)).toBeGreaterThan(TRAIL_IDLE_SECONDS - 600);
    expect((await queue.attempts(job.id))?.entries.map((entry) => entry.outcome)).toEqual(['retried', 'failed']);
    await queue.close();
  });

  test('kept without a TTL (failed, no failedTtlSeconds): the trail is kept as long, until the hash goes', async ({ redis, queueName }) => {
    const queue = open(redis, queueName);
    const job = await withTrail(queue);
    await queue.fail(job, new Error('fatal'), { permanent: true });
    expect(await expiries(redis, [queue.keys.job(job.id), ...trailKeys(queue, job.id)])).toEqual([-1, -1, -1]);
    await queue.close();
  });

  test('while the job waits for its retry, its trail holds for the delay and TRAIL_IDLE_SECONDS more', async ({ redis, queueName }) => {
    const queue = open(redis, queueName);
    const job = await withTrail(queue);
    await queue.fail(job, new Error('again'), { retryDelayMs: 7_200_000 });
    for (const key of trailKeys(queue, job.id)) {
      const ttl = await redis.ttl(key);
      expect(ttl).toBeGreaterThan(TRAIL_IDLE_SECONDS + 7_200 - 600);
      expect(ttl).toBeLessThanOrEqual(TRAIL_IDLE_SECONDS + 7_200);
    }
    await queue.close();
  });

  test('completed by a recipe client, which expires the hash and knows nothing of the trail: the trail does not stay for good', async ({ redis, queueName }) => {
    const queue = open(redis, queueName);
    const job = await withTrail(queue);
    // Handed back to a recipe worker's claim, then its recipe complete (EXPIRE 300 on the hash only).
    await queue.release([job]);
    const recipe = new RecipeClient(redis, queueName);
    const claimed = await recipe.claim();
    expect(claimed?.id).toBe(job.id);
    expect(await recipe.complete(claimed as { id: string; token: string }, 'ok')).toBe(1);
    expect(await redis.ttl(queue.keys.job(job.id))).toBeGreaterThan(0);
    for (const key of trailKeys(queue, job.id)) {
      const ttl = await redis.ttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(TRAIL_IDLE_SECONDS);
    }
    await queue.close();
  });

  test('purged: no trail key is left', async ({ redis, queueName }) => {
    const queue = open(redis, queueName);
    const job = await withTrail(queue);
    await queue.fail(job, new Error('fatal'), { permanent: true });
    await queue.purge();
    expect(await queueKeysIn(redis, queueName)).toEqual([]);
    await queue.close();
  });

  test('tidied after its TTL: tidyHistory finds the hash and its trail both gone', async ({ redis, queueName }) => {
    const queue = open(redis, queueName, { failedTtlSeconds: 1 });
    const job = await withTrail(queue);
    await queue.fail(job, new Error('fatal'), { permanent: true });
    await waitFor(async () => (await queue.tidyHistory()).failed === 1, { timeoutMs: 10_000 });
    await expectNoTrail(redis, queue, job.id);
    await queue.close();
  });
});
