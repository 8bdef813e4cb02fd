import { queueKeysIn, redisTest as test, waitFor, type TestRedis } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { Schedules } from '../src/schedules/schedules.ts';
import { Queue, type ClaimedJob, type FlowResult, type PayloadTypesOf, type RedisClient } from '../src/index.ts';
import { kinds } from './fixtures.ts';

type TestQueue = Queue<PayloadTypesOf<typeof kinds>>;

function openLogged(redis: RedisClient, queueName: string): TestQueue {
  return new Queue({ redis, queue: queueName, kinds, eventLog: true, workerId: 'w-1' });
}

/** The whole log in order, one "job event attempt worker code" line per entry, ids named by `names`. */
async function logLines(redis: TestRedis, queueName: string, names: Record<string, string>): Promise<string[]> {
  const raw = await redis.xrange(`queue:{${queueName}}:log`, '-', '+');
  return raw.map(([, flat]) => {
    const f: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) f[flat[i] as string] = flat[i + 1] as string;
    return [names[f.job as string] ?? f.job, f.event, f.attempt, f.worker, f.code].join(' ').trim();
  });
}

/** A job's timeline as "event attempt" lines, with each event's extra fields appended (ids named by `names`). */
async function timelineOf(queue: TestQueue, id: string, names: Record<string, string>): Promise<string[]> {
  const timeline = await queue.timeline(id);
  return (timeline?.events ?? []).map((e) => {
    const extra = Object.entries(e.extra).map(([name, value]) => `${name}=${names[value] ?? value}`);
    return [e.event, e.attempt, ...extra].join(' ');
  });
}

const email = (n: number) => ({ kind: 'email' as const, payload: { recipient: 'a@example.com', n } });
const thumb = (image: string) => ({ kind: 'thumbnail' as const, payload: { image, width: 64 } });

/** Claims one job and checks it is `id`. */
async function claimOne(queue: TestQueue, id: string): Promise<ClaimedJob> {
  const [job] = (await queue.claim()) as [ClaimedJob];
  expect(job?.id).toBe(id);
  return job;
}

describe('the event log records a flow', () => {
  test('enqueued for each job, waiting-children, child-settled per child and children-done on the parent, in order, in the log and in each timeline', async ({ redis, queueName }) => {
    const queue = openLogged(redis, queueName);
    const flow = await queue.enqueueFlow({ ...email(0), children: [thumb('a.png'), thumb('b.png')] });
    const [a, b] = flow.children.map((child) => child.id) as [string, string];
    const names = { [flow.id]: 'P', [a]: 'A', [b]: 'B' };
    const jobA = await claimOne(queue, a);
    const jobB = await claimOne(queue, b);
    await queue.complete(jobA, 'a');
    await queue.complete(jobB, 'b');
    await queue.complete(await claimOne(queue, flow.id), 'zipped');

    expect(await logLines(redis, queueName, names)).toEqual([
      'P enqueued 0',
      'P waiting-children 0',
      'A enqueued 0',
      'B enqueued 0',
      'A claimed 1 w-1',
      'B claimed 1 w-1',
      'A completed 1 w-1',
      'P child-settled 0 w-1',
      'B completed 1 w-1',
      'P child-settled 0 w-1',
      'P children-done 0 w-1',
      'P claimed 1 w-1',
      'P completed 1 w-1',
    ]);
    expect(await timelineOf(queue, flow.id, names)).toEqual([
      'enqueued 0',
      'waiting-children 0 children=2',
      'child-settled 0 child=A status=completed',
      'child-settled 0 child=B status=completed',
      'children-done 0',
      'claimed 1',
      'completed 1',
    ]);
    expect(await timelineOf(queue, a, names)).toEqual(['enqueued 0 parent=P', 'claimed 1', 'completed 1']);
    expect(await timelineOf(queue, b, names)).toEqual(['enqueued 0 parent=P', 'claimed 1', 'completed 1']);
    await queue.close();
  });

  test('a nested parent logs children-done when its own child completes, and the root when that parent completes', async ({ redis, queueName }) => {
    const queue = openLogged(redis, queueName);
    const flow = await queue.enqueueFlow({ ...email(0), children: [{ ...email(1), children: [thumb('x')] }] });
    const mid = flow.children[0] as FlowResult;
    const leaf = (mid.children[0] as FlowResult).id;
    const names = { [flow.id]: 'R', [mid.id]: 'M', [leaf]: 'L' };
    await queue.complete(await claimOne(queue, leaf), 'x');
    await queue.complete(await claimOne(queue, mid.id), 'm');
    expect(await logLines(redis, queueName, names)).toEqual([
      'R enqueued 0',
      'R waiting-children 0',
      'M enqueued 0',
      'M waiting-children 0',
      'L enqueued 0',
      'L claimed 1 w-1',
      'L completed 1 w-1',
      'M child-settled 0 w-1',
      'M children-done 0 w-1',
      'M claimed 1 w-1',
      'M completed 1 w-1',
      'R child-settled 0 w-1',
      'R children-done 0 w-1',
    ]);
    expect(await timelineOf(queue, mid.id, names)).toEqual([
      'enqueued 0 parent=R',
      'waiting-children 0 children=1',
      'child-settled 0 child=L status=completed',
      'children-done 0',
      'claimed 1',
      'completed 1',
    ]);
    await queue.close();
  });

  test('a child that fails for good logs failed, then child-settled and failed with JOBS_CHILD_FAILED on its parent', async ({ redis, queueName }) => {
    const queue = openLogged(redis, queueName);
    const flow = await queue.enqueueFlow({ ...email(0), children: [thumb('a.png')] });
    const a = (flow.children[0] as FlowResult).id;
    const names = { [flow.id]: 'P', [a]: 'A' };
    expect(await queue.fail(await claimOne(queue, a), new TypeError('decoder crashed'), { permanent: true })).toBe('failed');
    expect((await logLines(redis, queueName, names)).slice(3)).toEqual([
      'A claimed 1 w-1',
      'A failed 1 w-1 TypeError',
      'P child-settled 0 w-1',
      'P failed 0 w-1 JOBS_CHILD_FAILED',
    ]);
    expect(await timelineOf(queue, flow.id, names)).toEqual([
      'enqueued 0',
      'waiting-children 0 children=1',
      'child-settled 0 child=A status=failed',
      'failed 0',
    ]);
    await queue.close();
  });

  test('a cancelled parent is logged first, then each child it cancels, down the tree; a cancelled child fails its parent in the log too', async ({ redis, queueName }) => {
    const queue = openLogged(redis, queueName);
    const flow = await queue.enqueueFlow({ ...email(0), children: [thumb('a.png'), { ...email(1), children: [thumb('x')] }] });
    const [aNode, mid] = flow.children as [FlowResult, FlowResult];
    const leaf = (mid.children[0] as FlowResult).id;
    const names = { [flow.id]: 'P', [aNode.id]: 'A', [mid.id]: 'M', [leaf]: 'L' };
    expect(await queue.cancel(flow.id)).toEqual({ cancelled: true, wasRunning: false });
    expect((await logLines(redis, queueName, names)).slice(6)).toEqual(['P cancelled 0 w-1', 'A cancelled 0 w-1', 'M cancelled 0 w-1', 'L cancelled 0 w-1']);
    for (const id of [aNode.id, mid.id, leaf]) expect((await queue.timeline(id))?.events.at(-1)?.event).toBe('cancelled');

    const other = await queue.enqueueFlow({ ...email(2), children: [thumb('c.png')] });
    const child = (other.children[0] as FlowResult).id;
    expect(await queue.cancel(child)).toEqual({ cancelled: true, wasRunning: false });
    expect(await timelineOf(queue, other.id, { [child]: 'C' })).toEqual([
      'enqueued 0',
      'waiting-children 0 children=1',
      'child-settled 0 child=C status=cancelled',
      'failed 0',
    ]);
    expect((await queue.timeline(other.id))?.events.at(-1)?.code).toBe('JOBS_CHILD_FAILED');
    await queue.close();
  });

  test('with the log off, flows write no stream and no log ids', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    const done = await queue.enqueueFlow({ ...email(0), children: [thumb('a.png')] });
    const a = (done.children[0] as FlowResult).id;
    await queue.complete(await claimOne(queue, a), 'a');
    await queue.complete(await claimOne(queue, done.id), 'p');
    const failing = await queue.enqueueFlow({ ...email(1), children: [thumb('b.png')] });
    const b = (failing.children[0] as FlowResult).id;
    await queue.fail(await claimOne(queue, b), new Error('x'), { permanent: true });
    const cancelled = await queue.enqueueFlow({ ...email(2), children: [thumb('c.png')] });
    await queue.cancel(cancelled.id);
    expect((await queueKeysIn(redis, queueName)).filter((key) => key.endsWith(':log'))).toEqual([]);
    for (const id of [done.id, a, failing.id, b, cancelled.id, (cancelled.children[0] as FlowResult).id]) {
      expect(await redis.hexists(`queue:{${queueName}}:job:${id}`, 'log_ids')).toBe(0);
    }
    await queue.close();
  });
});

describe('the event log records schedules', () => {
  test('a due tick that a timing change runs at once logs its job as enqueued, as a fired tick does', async ({ redis, queueName }) => {
    const queue = openLogged(redis, queueName);
    const schedules = new Schedules(queue.partitions[0]!.ctx, { minEveryMs: 100 });
    const { nextRunAt } = await schedules.upsert({ id: 'poll', kind: 'email', payload: { recipient: 'a@example.com' }, every: 100 });
    // Nothing fires the tick (no runner): it is due, and still waiting, when the timing changes.
    await waitFor(async () => {
      const [seconds, micros] = await redis.time();
      return Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000) > (nextRunAt ?? 0);
    }, { what: 'the Redis clock past the first tick' });
    await schedules.upsert({ id: 'poll', kind: 'email', payload: { recipient: 'a@example.com' }, every: 200 });
    const jobId = `sched:poll:${nextRunAt}`;
    expect((await queue.getJob(jobId))?.status).toBe('pending');
    expect(await logLines(redis, queueName, {})).toEqual([`${jobId} enqueued 0`]);
    expect((await queue.timeline(jobId))?.events.map((e) => e.event)).toEqual(['enqueued']);
    await queue.close();
  });
});
