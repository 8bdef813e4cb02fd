import { queueKeysIn, redisTest as test, seededRandom, waitFor, type TestRedis } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { queueKeys, type ClaimedJob, type EnqueueOptions } from '../src/index.ts';
import { openQueue } from './fixtures.ts';

/** Each key keeps one option set, so "at most one job per key in its states" is what it promises. */
const KEYS: readonly [string, EnqueueOptions][] = [
  ['u1', { dedupe: { key: 'u1', mode: 'until-done' } }],
  ['u2', { dedupe: { key: 'u2', mode: 'until-done', replace: 'payload' } }],
  ['d1', { dedupe: { key: 'd1', mode: 'debounce', ttlMs: 5 } }],
  ['q1', { unique: { key: 'q1', states: ['waiting', 'delayed', 'running', 'completed'] } }],
  ['q2', { unique: { key: 'q2', states: ['waiting', 'running', 'failed', 'cancelled'] } }],
];

const LETTERS: Readonly<Record<string, string>> = { pending: 'w', delayed: 'd', processing: 'r', completed: 'c', failed: 'f', cancelled: 'x' };

/**
 * The invariant: no dedupe key without a job that owns it (its hash names the key, and it is live
 * or ended in one of the key's states), and never two jobs of one key in its states.
 */
async function checkKeys(redis: TestRedis, queueName: string): Promise<void> {
  const k = queueKeys(queueName);
  const jobs = new Map<string, Record<string, string>>();
  for (const key of await queueKeysIn(redis, queueName)) {
    if (!key.startsWith(k.jobPrefix) || key.includes('#')) continue;
    jobs.set(key.slice(k.jobPrefix.length), await redis.hgetall(key));
  }
  for (const [name] of KEYS) {
    const key = k.dedupe('email', name);
    const owner = await redis.get(key);
    const holding = [...jobs.values()].filter((h) => h.dedupe_key === key && (h.dedupe_states ?? '').includes(LETTERS[h.status as string] ?? '?'));
    expect(holding.length, `jobs holding ${name}`).toBeLessThanOrEqual(1);
    if (owner === null) {
      expect(holding, `${name} is free, yet a job holds it`).toEqual([]);
    } else {
      const hash = jobs.get(owner);
      expect(hash?.dedupe_key, `${name} names ${owner}, which does not name it`).toBe(key);
      // A live owner (a debounced job that started no longer absorbs, and keeps its key to its
      // end), or an ended one in a state the key holds in.
      const live = hash?.status === 'pending' || hash?.status === 'delayed' || hash?.status === 'processing';
      if (!live) expect(hash?.dedupe_states, `${name} is owned by ${owner} in status ${hash?.status}`).toContain(LETTERS[hash?.status as string] ?? '?');
      // Read together: the key and the hash were given one expiry by one script.
      const [[, keyTtl], [, hashTtl]] = (await redis.multi().ttl(key).ttl(k.job(owner)).exec()) as [[unknown, number], [unknown, number]];
      const ended = hash?.status === 'completed' || hash?.status === 'failed' || hash?.status === 'cancelled';
      expect(keyTtl, `${name} without a period has no TTL unless its job's hash has one`).toBe(ended ? hashTtl : -1);
    }
  }
}

async function redisNow(redis: TestRedis): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

describe('dedupe keys under random operations', () => {
  for (const seed of [1, 2, 3]) {
    test(`seed ${seed}: after every step, no key without a live owner and never two owners`, async ({ redis, queueName }) => {
      const next = seededRandom(seed);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
      const queue = openQueue(redis, queueName, { visibilityMs: 20, maxAttempts: 2, backoff: { type: 'fixed', delayMs: 0 }, completedHistory: 3, completedTtlSeconds: 600, failedHistory: 3, cancelledTtlSeconds: 600 });
      // Jobs claimed and not settled yet: a worker may settle them, or die (SIGKILL) holding them.
      const held: ClaimedJob[] = [];
      const ids: string[] = [];
      for (let step = 0; step < 250; step += 1) {
        const roll = next();
        if (roll < 0.35) {
          const [name, options] = pick(KEYS);
          const [result] = await queue.enqueueMany([{ kind: 'email', payload: { recipient: `${name}@example.com`, n: step }, options }]);
          if (result?.created) ids.push(result.id);
        } else if (roll < 0.5) {
          await queue.promoteDue();
          held.push(...(await queue.claim({ max: 2 })));
        } else if (roll < 0.62 && held.length > 0) {
          const job = held.splice(Math.floor(next() * held.length), 1)[0] as ClaimedJob;
          await queue.complete(job, step).catch(() => undefined);
        } else if (roll < 0.72 && held.length > 0) {
          const job = held.splice(Math.floor(next() * held.length), 1)[0] as ClaimedJob;
          await queue.fail(job, new Error('step'), { permanent: next() < 0.5 }).catch(() => undefined);
        } else if (roll < 0.78 && ids.length > 0) {
          await queue.cancel(pick(ids));
        } else if (roll < 0.84 && ids.length > 0) {
          await queue.remove(pick(ids));
        } else if (roll < 0.94 && held.length > 0) {
          // The worker holding these dies: their leases run out and the sweep takes them back.
          const dead = held.splice(0, held.length);
          const latest = Math.max(...dead.map((j) => j.leaseExpiresAtMs));
          await waitFor(async () => (await redisNow(redis)) > latest, { what: 'the dead worker\'s leases to expire' });
          await queue.reclaimStuck();
        } else if (roll < 0.95) {
          await queue.purge();
          held.length = 0;
          ids.length = 0;
        }
        await checkKeys(redis, queueName);
      }
      await queue.close();
    }, 60_000);
  }
});
