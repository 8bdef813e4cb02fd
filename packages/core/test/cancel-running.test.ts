import { onEveryNode, openRedis, redisTest as test, urlWithUser, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { isJobsError, Queue, queueKeys, type ClaimedJob } from '../src/index.ts';
import { kinds, openQueue } from './fixtures.ts';

const mail = { recipient: 'a@example.com' };

describe('cancelling a running job', () => {
  test('voids its claim at once: it leaves processing and the lease index, ends cancelled, and its worker can record nothing', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { eventLog: true, cancelledTtlSeconds: 60 });
    const k = queueKeys(queueName);
    const id = await queue.enqueue('email', mail);
    const [job] = (await queue.claim()) as [ClaimedJob];
    expect(await queue.cancel(id)).toEqual({ cancelled: true, wasRunning: true });
    expect(await redis.lrange(k.processing, 0, -1)).toEqual([]);
    expect(await redis.zscore(k.leases, id)).toBeNull();
    const record = await queue.getJob(id);
    expect(record?.status).toBe('cancelled');
    expect(await redis.hget(k.job(id), 'claim_token')).toBe('');
    expect((await queue.stats()).cancelledTotal).toBe(1);
    // The worker that ran it: its completion is refused as cancelled, its renewal says why.
    expect(await queue.completeSettled([{ job, result: 1 }])).toEqual([{ status: 'cancelled' }]);
    expect(await queue.partitions[0]?.renewLeases([job], 1_000)).toEqual(['cancelled']);
    expect(await queue.extendLeases([job], 1_000)).toEqual([null]);
    const renewal = await queue.extendLease(job, 1_000).catch((error: unknown) => error);
    expect(isJobsError(renewal, 'JOBS_CANCELLED')).toBe(true);
    const failure = await queue.fail(job, new Error('late')).catch((error: unknown) => error);
    expect(isJobsError(failure, 'JOBS_LOST_CLAIM')).toBe(true);
    expect((await queue.getJob(id))?.status).toBe('cancelled');
    // Its attempt says how it ended; the log says cancelled; a second cancel changes nothing.
    expect((await queue.attempts(id))?.entries.map((attempt) => attempt.outcome)).toEqual(['cancelled']);
    expect((await queue.timeline(id))?.events.map((event) => event.event)).toEqual(['enqueued', 'claimed', 'cancelled']);
    expect(await queue.cancel(id)).toEqual({ cancelled: false, status: 'cancelled' });
    expect((await queue.stats()).cancelledTotal).toBe(1);
    expect(await queue.claim()).toEqual([]);
    await queue.close();
  });

  test('tells the queue\'s workers on the control channel which claim it voided', async ({ redis, redisUrl, queueName }) => {
    const queue = openQueue(redis, queueName);
    const k = queueKeys(queueName);
    const listener = openRedis(redisUrl);
    const heard: string[] = [];
    listener.on('message', (_channel: string, message: string) => heard.push(message));
    await listener.subscribe(k.control);
    const id = await queue.enqueue('email', mail);
    const [job] = (await queue.claim()) as [ClaimedJob];
    await queue.cancel(id);
    const message = await waitFor(() => heard[0], { what: 'the cancel order' });
    expect(JSON.parse(message)).toEqual({ op: 'cancel', id, token: job.token });
    // A job that was not running is nobody's to stop: no order.
    const waiting = await queue.enqueue('email', mail);
    await queue.cancel(waiting);
    const marker = await queue.enqueue('email', mail);
    const [markerJob] = (await queue.claim()) as [ClaimedJob];
    await queue.cancel(marker);
    await waitFor(() => heard.length >= 2 || undefined, { what: 'the second order' });
    expect(heard.map((m) => (JSON.parse(m) as { token: string }).token)).toEqual([job.token, markerJob.token]);
    listener.disconnect();
    await queue.close();
  });

  test('a user whose ACL rules predate the control channel still cancels a running job (its worker learns it at the next renewal)', async ({ redis, redisUrl, queueName }) => {
    const user = `cancel-${queueName}`;
    await onEveryNode(redis, (node) => node.acl('SETUSER', user, 'on', '>s3cret-pass', `~queue:{${queueName}}:*`, `&queue:{${queueName}}:events`, '+@all'));
    const queue = new Queue({ redis: urlWithUser(redisUrl, user, 's3cret-pass'), queue: queueName, kinds });
    const id = await queue.enqueue('email', mail);
    const [job] = (await queue.claim()) as [ClaimedJob];
    expect(await queue.cancel(id)).toEqual({ cancelled: true, wasRunning: true });
    expect(await queue.partitions[0]?.renewLeases([job], 1_000)).toEqual(['cancelled']);
    expect(await redis.llen(queueKeys(queueName).processing)).toBe(0);
    await queue.close();
    await onEveryNode(redis, (node) => node.acl('DELUSER', user));
  });

  test('gives back the running slot of its kind\'s cap: the parked job runs next', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ kinds: { email: { concurrency: 1 } } });
    const first = await queue.enqueue('email', mail);
    const second = await queue.enqueue('email', mail);
    const [job] = (await queue.claim({ max: 2 })) as [ClaimedJob];
    expect(job.id).toBe(first);
    expect(await queue.claim()).toEqual([]);
    expect(await queue.cancel(first)).toEqual({ cancelled: true, wasRunning: true });
    const [next] = (await queue.claim()) as [ClaimedJob];
    expect(next.id).toBe(second);
    await queue.close();
  });

  test('a running flow child cancelled fails its parent, as a waiting one does', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const flow = await queue.enqueueFlow({ kind: 'email', payload: mail, children: [{ kind: 'email', payload: mail }] });
    const [child] = (await queue.claim()) as [ClaimedJob];
    expect(child.id).toBe(flow.children[0]?.id);
    expect(await queue.cancel(child.id)).toEqual({ cancelled: true, wasRunning: true });
    const parent = await queue.getJob(flow.id);
    expect(parent?.status).toBe('failed');
    expect(parent?.lastError).toMatch(/^JOBS_CHILD_FAILED/);
    await queue.close();
  });

  test('releases its dedupe key and counts it cancelled in its batch', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const k = queueKeys(queueName);
    const id = await queue.enqueue('email', mail, { dedupe: { key: 'daily', mode: 'until-done' } });
    await queue.claim();
    expect(await redis.exists(k.dedupe('email', 'daily'))).toBe(1);
    await queue.cancel(id);
    expect(await redis.exists(k.dedupe('email', 'daily'))).toBe(0);
    const batch = await queue.batch({ id: 'b1', onComplete: { kind: 'email', payload: mail } });
    const [member] = await batch.add([{ kind: 'email', payload: mail }]);
    await batch.seal();
    await queue.claim();
    await queue.cancel(member?.id as string);
    expect(await queue.batchState('b1')).toMatchObject({ total: 1, cancelled: 1, pending: 0 });
    await queue.close();
  });
});
