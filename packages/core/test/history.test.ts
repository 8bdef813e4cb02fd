import { queueKeysIn, redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { addHistory, HISTORY_FIELD, runBucketOf } from '../src/internal.ts';
import { isJobsError, Queue, queueKeys, type RedisClient } from '../src/index.ts';
import { METRICS_HOUR_MS, METRICS_MINUTE_MS, METRICS_MINUTE_SLOTS, METRICS_SLOT_FIELDS } from '../src/generated/constants.ts';
import { percentileOf } from '../src/history-buckets.ts';
import { metricsAddScript } from '../src/generated/metrics-add.ts';
import { expandLua } from '../tools/generate-scripts.mjs';
import { kinds, openQueue } from './fixtures.ts';

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);
const mail = { recipient: 'a@example.com' };

/** Amounts for addHistory: `set` (field: amount) filled in. */
function amounts(set: Record<number, number>): number[] {
  const fields = new Array<number>(METRICS_SLOT_FIELDS).fill(0);
  for (const [field, amount] of Object.entries(set)) fields[Number(field) - 1] = amount;
  return fields;
}

/**
 * Runs lib/metrics.lua's metrics_add for kind `kind` of `queueName` at each of the times `nows`
 * (ms) given: the writes of minutes and hours to come, which Redis time cannot give a test.
 */
async function addAt(redis: RedisClient, queueName: string, kind: string, nows: readonly number[]): Promise<void> {
  const k = queueKeys(queueName);
  const script = `${expandLua('lib/metrics.lua')}\nfor i = 3, #ARGV do metrics_add(ARGV[1], ARGV[2], tonumber(ARGV[i]), { 2, '1' }) end\nreturn 1`;
  for (let i = 0; i < nows.length; i += 500) {
    await redis.eval(script, 1, k.metricsKinds, k.prefix, kind, ...nows.slice(i, i + 500).map(String));
  }
}

describe('metrics history', () => {
  test('enqueues are counted per kind by the enqueue scripts, in the minute of Redis time, flows included', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { metricsHistory: true });
    await queue.enqueue('email', mail);
    await queue.enqueueMany([{ kind: 'email', payload: mail }, { kind: 'webhook', payload: { url: 'https://example.com/' } }, { kind: 'email', payload: mail, options: { delayMs: 60_000 } }]);
    await queue.enqueueFlow({ kind: 'email', payload: mail, children: [{ kind: 'thumbnail', payload: { image: 'a.png', width: 10 } }] });
    const all = await queue.history();
    expect(all.kinds).toEqual(['email', 'thumbnail', 'webhook']);
    expect(all.kind).toBeNull();
    expect(all.stepMs).toBe(METRICS_MINUTE_MS);
    expect(all.atMs).toHaveLength(60);
    expect(all.atMs.at(-1)).toBe(Math.floor(all.nowMs / METRICS_MINUTE_MS) * METRICS_MINUTE_MS);
    expect(sum(all.enqueued)).toBe(6);
    expect(sum(all.completed) + sum(all.failed) + sum(all.retried)).toBe(0);
    expect(sum((await queue.history({ kind: 'email' })).enqueued)).toBe(4);
    expect(sum((await queue.history({ kind: 'webhook' })).enqueued)).toBe(1);
    // The hour ring counts them too: the 14-day view.
    const fortnight = await queue.history({ since: 14 * 86_400_000 });
    expect(fortnight.stepMs).toBe(METRICS_HOUR_MS);
    expect(fortnight.atMs).toHaveLength(336);
    expect(sum(fortnight.enqueued)).toBe(6);
    // An enqueue deduplicated by its idempotency key writes nothing and counts nothing.
    await queue.enqueue('email', mail, { idempotencyKey: 'once' });
    const [held] = await queue.enqueueMany([{ kind: 'email', payload: mail, options: { idempotencyKey: 'once' } }]);
    expect(held?.created).toBe(false);
    expect(sum((await queue.history({ kind: 'email' })).enqueued)).toBe(5);
    await queue.close();
  });

  test('outcomes and run times added in one call land per kind, and the percentiles come from the run-time buckets', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { metricsHistory: true });
    const ctx = queue.partitions[0]!.ctx;
    const runs = [5, 5, 5, 40, 40, 300, 300, 300, 300, 2_000];
    const buckets: Record<number, number> = {};
    for (const ms of runs) buckets[HISTORY_FIELD.firstRunBucket + runBucketOf(ms)] = (buckets[HISTORY_FIELD.firstRunBucket + runBucketOf(ms)] ?? 0) + 1;
    const nowMs = await addHistory(ctx, new Map([
      ['email', amounts({ [HISTORY_FIELD.completed]: 7, [HISTORY_FIELD.failed]: 1, [HISTORY_FIELD.retried]: 2, ...buckets })],
      ['webhook', amounts({ [HISTORY_FIELD.completed]: 3 })],
      ['thumbnail', amounts({})],
    ]));
    expect(nowMs).toBeGreaterThan(0);
    const email = await queue.history({ kind: 'email' });
    expect([sum(email.completed), sum(email.failed), sum(email.retried), sum(email.enqueued)]).toEqual([7, 1, 2, 0]);
    const at = email.completed.findIndex((n) => n > 0);
    expect(email.atMs[at]).toBe(Math.floor((nowMs as number) / METRICS_MINUTE_MS) * METRICS_MINUTE_MS);
    const histogram = new Array<number>(26).fill(0);
    for (const ms of runs) histogram[runBucketOf(ms)] = (histogram[runBucketOf(ms)] as number) + 1;
    expect(email.runMsP50[at]).toBe(percentileOf(histogram, 0.5));
    expect(email.runMsP95[at]).toBe(percentileOf(histogram, 0.95));
    expect(email.runMsP99[at]).toBe(percentileOf(histogram, 0.99));
    // The 5th of the 10 runs is 40 ms: in [32, 64).
    expect(email.runMsP50[at]).toBeGreaterThanOrEqual(32);
    expect(email.runMsP50[at]).toBeLessThanOrEqual(64);
    expect(email.runMsP99[at]).toBeGreaterThanOrEqual(1024);
    expect(email.runMsP50.filter((p) => p !== null)).toHaveLength(1);
    expect(sum((await queue.history()).completed)).toBe(10);
    // A kind with nothing to add writes nothing.
    expect((await queue.history()).kinds).toEqual(['email', 'webhook']);
    expect(await addHistory(ctx, new Map([['email', amounts({})]]))).toBeUndefined();
    // A field outside the slot (the stamp, or past the last bucket) is skipped by the script.
    const k = queueKeys(queueName);
    const before = await redis.getrange(k.metrics('email'), 0, -1);
    await queue.partitions[0]!.ctx.scripts.run(metricsAddScript, metricsAddScript.argv({ kinds: k.metricsKinds }, { prefix: k.prefix, counts: ['email', 2, 0, 5, METRICS_SLOT_FIELDS + 1, 5] }), false);
    expect(await redis.getrange(k.metrics('email'), 0, -1)).toBe(before);
    await queue.close();
  });

  test('the string of a kind has one fixed size, however many minutes and hours are written past both rings', async ({ redis, queueName }) => {
    const key = queueKeys(queueName).metrics('email');
    const start = Date.UTC(2026, 0, 1);
    await addAt(redis, queueName, 'email', [start]);
    const size = Number(await redis.memory('USAGE', key));
    const length = await redis.strlen(key);
    // 24 hours of minutes twice over, then 14 days of hours twice over.
    const minutes = Array.from({ length: 2 * METRICS_MINUTE_SLOTS + 7 }, (_, i) => start + i * METRICS_MINUTE_MS);
    const hours = Array.from({ length: 2 * 336 + 5 }, (_, i) => start + 2 * 86_400_000 + i * METRICS_HOUR_MS);
    await addAt(redis, queueName, 'email', [...minutes, ...hours]);
    expect(await redis.strlen(key)).toBe(length);
    expect(Number(await redis.memory('USAGE', key))).toBe(size);
    expect(length).toBe((1440 + 336) * 124 + 4);
    // The per-kind bytes the README states.
    expect(size).toBeLessThan(240 * 1024);
  });

  test('a slot written a whole ring ago reads as zero: its stamp names another step', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { metricsHistory: true });
    const { nowMs } = await queue.history();
    // The same slot as this minute's, one ring (24 hours) earlier; and the previous minute, which is live.
    await addAt(redis, queueName, 'email', [nowMs - METRICS_MINUTE_SLOTS * METRICS_MINUTE_MS, nowMs - METRICS_MINUTE_MS, nowMs - METRICS_MINUTE_MS]);
    const read = await queue.history({ since: 600_000 });
    expect(read.completed.at(-1)).toBe(0);
    expect(sum(read.completed)).toBe(2);
    await queue.close();
  });

  test('off (the default), nothing is counted and no key of the history is written', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.enqueue('email', mail);
    await queue.enqueueFlow({ kind: 'email', payload: mail, children: [{ kind: 'email', payload: mail }] });
    const [job] = await queue.claim();
    await queue.complete(job!, 'ok');
    expect((await queueKeysIn(redis, queueName)).filter((key) => key.includes(':metrics'))).toEqual([]);
    const read = await queue.history();
    expect([read.kinds, sum(read.enqueued)]).toEqual([[], 0]);
    await queue.close();
  });

  test('a partitioned queue counts in each partition and sums them when read', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis: redisUrl, queue: queueName, kinds, partitions: 3, metricsHistory: true });
    await Promise.all(['a', 'b', 'c', 'd', 'e', 'f'].map((key) => queue.enqueue('email', mail, { partitionKey: key })));
    const used = new Set<number>();
    for (const [index, partition] of queue.partitions.entries()) if ((await redis.llen(partition.ctx.keys.pending)) > 0) used.add(index);
    expect(used.size).toBeGreaterThan(1);
    expect(sum((await queue.history()).enqueued)).toBe(6);
    await queue.close();
  });

  test('purge deletes the history with the rest of the queue', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { metricsHistory: true });
    await queue.enqueue('email', mail);
    expect((await queueKeysIn(redis, queueName)).filter((key) => key.includes(':metrics'))).toHaveLength(2);
    await queue.purge();
    expect(await queueKeysIn(redis, queueName)).toEqual([]);
    expect(sum((await queue.history()).enqueued)).toBe(0);
    await queue.close();
  });

  test('bad options are refused with a typed error naming the field', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { metricsHistory: true });
    const refused = async (options: object, field: string): Promise<void> => {
      const error = await queue.history(options as never).catch((e: unknown) => e);
      expect(isJobsError(error, 'JOBS_INVALID_ARGUMENT') && error.field, JSON.stringify(options)).toBe(field);
    };
    await refused({ since: 59_999 }, 'since');
    await refused({ since: 15 * 86_400_000 }, 'since');
    await refused({ since: '24h' }, 'since');
    await refused({ kind: '' }, 'kind');
    await refused({ kind: 'a b' }, 'kind');
    await refused({ stepMs: 90_000 }, 'stepMs');
    await refused({ since: 3_600_000, stepMs: 7_200_000 }, 'stepMs');
    await refused({ range: '1h' }, 'options.range');
    expect(() => openQueue(redis, queueName, { metricsHistory: 'yes' as never })).toThrow(expect.objectContaining({ code: 'JOBS_INVALID_ARGUMENT', field: 'options.metricsHistory' }));
    const merged = await queue.history({ since: 86_400_000, stepMs: 3_600_000 });
    expect([merged.stepMs, merged.atMs.length]).toEqual([3_600_000, 25]);
    await queue.close();
  });
});
