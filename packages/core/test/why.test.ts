import { redisTest as test, type TestRedis } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { isJobsError, Queue, WHY_REASON_CODES, type JobWhy, type PayloadTypesOf } from '../src/index.ts';
import { WHY_SCAN_MAX } from '../src/generated/constants.ts';
import { leaveRegistry, sendHeartbeat } from '../src/internal.ts';
import { kinds, openQueue, reason } from './fixtures.ts';
import { RecipeClient } from './recipe-client.ts';

const mail = (n: number) => ({ recipient: 'a@example.com', n });

async function redisNow(redis: TestRedis): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** A live worker of `queue`'s registry (partition 0's) handling `handles`, for a minute. */
async function liveWorker(queue: Queue<PayloadTypesOf<typeof kinds>>, id: string, handles: string[] = ['email', 'webhook', 'thumbnail']): Promise<void> {
  await sendHeartbeat(queue.partitions[0]!.ctx, { id, host: 'box-1', pid: 1, version: '1.0.0', kinds: handles, concurrency: 1, running: [], ttlMs: 60_000 });
}

function codes(answer: JobWhy | null): string[] {
  return (answer?.reasons ?? []).map((r) => r.code);
}

describe('why: pauses', () => {
  test('a paused queue: the job is pending, the queue paused since the pause (Redis clock), next in line', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await liveWorker(queue, 'w-1');
    const id = await queue.enqueue('email', mail(1));
    const before = await redisNow(redis);
    await queue.pause();
    const answer = await queue.why(id);
    expect(answer).toMatchObject({ id, status: 'pending', kind: 'email' });
    const paused = reason(answer, 'queue-paused');
    expect(paused.sinceMs).toBeGreaterThanOrEqual(before);
    expect(paused.sinceMs).toBeLessThanOrEqual(answer!.atMs);
    expect(reason(answer, 'queued')).toEqual({ code: 'queued', list: 'pending', priority: 0, ahead: 0, atLeast: false });
    // A second pause keeps the first one's time.
    await queue.pause();
    expect(reason(await queue.why(id), 'queue-paused').sinceMs).toBe(paused.sinceMs);
    await queue.resume();
    expect(codes(await queue.why(id))).toEqual(['queued']);
    await queue.close();
  });

  test('a pause written before its time was recorded says since null', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', mail(1));
    await redis.hset(queue.keys.admission, 'paused', '1');
    expect(reason(await queue.why(id), 'queue-paused')).toEqual({ code: 'queue-paused', sinceMs: null });
    await queue.close();
  });

  test('a paused kind: its job met by a claim is parked, the kind paused since the pause', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const first = await queue.enqueue('email', mail(1));
    const second = await queue.enqueue('email', mail(2));
    const before = await redisNow(redis);
    await queue.pause({ kind: 'email' });
    expect(await queue.claim({ max: 10 })).toEqual([]);
    const answer = await queue.why(second);
    expect(answer?.status).toBe('pending');
    const paused = reason(answer, 'kind-paused');
    expect(paused.kind).toBe('email');
    expect(paused.sinceMs).toBeGreaterThanOrEqual(before);
    expect(paused.sinceMs).toBeLessThanOrEqual(answer!.atMs);
    // Parked newest first: the first job is nearer the end the kind's jobs come back from.
    expect(reason(answer, 'parked')).toEqual({ code: 'parked', kind: 'email', ahead: 1 });
    expect(reason(await queue.why(first), 'parked').ahead).toBe(0);
    await queue.close();
  });
});

describe('why: limits', () => {
  test("a kind rate limit: the kind's window is full until its oldest start leaves it", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ kinds: { email: { rate: { max: 1, windowMs: 60_000 } } } });
    await queue.enqueue('email', mail(1));
    const held = await queue.enqueue('email', mail(2));
    const [started] = await queue.claim({ max: 10 });
    const answer = await queue.why(held);
    expect(reason(answer, 'rate-limited')).toEqual({ code: 'rate-limited', scope: 'kind', kind: 'email', max: 1, windowMs: 60_000, untilMs: started!.claimedAtMs + 60_000 });
    expect(codes(answer)).toContain('parked');
    await queue.close();
  });

  test("the queue's rate limit: full until its window opens, the job first in line", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ rate: { max: 1, windowMs: 60_000 } });
    await queue.enqueue('email', mail(1));
    const held = await queue.enqueue('email', mail(2));
    const [started] = await queue.claim({ max: 10 });
    const answer = await queue.why(held);
    expect(reason(answer, 'rate-limited')).toEqual({ code: 'rate-limited', scope: 'queue', max: 1, windowMs: 60_000, untilMs: started!.claimedAtMs + 60_000 });
    expect(reason(answer, 'queued').ahead).toBe(0);
    await queue.close();
  });

  test('a kind concurrency cap: held by the jobs running, named, until the first lease ends', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ kinds: { email: { concurrency: 2 } } });
    for (let n = 0; n < 3; n += 1) await queue.enqueue('email', mail(n));
    const running = await queue.claim({ max: 10 });
    expect(running).toHaveLength(2);
    const [waiting] = await queue.list('waiting');
    const full = reason(await queue.why(waiting!.id), 'kind-cap-full');
    expect({ ...full, heldBy: [...full.heldBy].sort() }).toEqual({
      code: 'kind-cap-full', kind: 'email', cap: 2, more: false,
      heldBy: running.map((job) => job.id).sort(),
      freesAtMs: Math.min(...running.map((job) => job.leaseExpiresAtMs)),
    });
    // A slot freed: the cap no longer holds it.
    await queue.complete(running[0]!, null);
    expect(codes(await queue.why(waiting!.id))).not.toContain('kind-cap-full');
    await queue.close();
  });

  test('a cap held by more jobs than it names says so', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ kinds: { email: { concurrency: 1 } } });
    const id = await queue.enqueue('email', mail(1));
    // Slots written by hand: 101 live leases, by the Redis clock.
    const until = (await redisNow(redis)) + 3_600_000;
    await redis.zadd(queue.keys.kindRunning('email'), ...Array.from({ length: 101 }, (_, n) => [until + n, `holder-${String(n).padStart(3, '0')}`]).flat());
    const full = reason(await queue.why(id), 'kind-cap-full');
    expect(full.heldBy).toHaveLength(100);
    expect(full.heldBy[0]).toBe('holder-000');
    expect(full).toMatchObject({ cap: 1, more: true, freesAtMs: until + 100 });
    await queue.close();
  });

  test("a group cap: held by the group's running job, the next one waiting for its group's turn", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ groups: { concurrency: 1 } });
    const first = await queue.enqueue('email', mail(1), { group: 'acme' });
    const second = await queue.enqueue('email', mail(2), { group: 'acme' });
    const third = await queue.enqueue('email', mail(3), { group: 'acme' });
    const [running] = await queue.claim({ max: 10 });
    expect(running?.id).toBe(first);
    const answer = await queue.why(third);
    expect(reason(answer, 'group-cap-full')).toEqual({ code: 'group-cap-full', group: 'acme', cap: 1, heldBy: [first], more: false, freesAtMs: running!.leaseExpiresAtMs });
    const turn = reason(answer, 'group-turn');
    expect(turn).toMatchObject({ group: 'acme', ahead: 1 });
    expect(turn.turnAtMs).toBe(Number(await redis.zscore(queue.keys.groups, 'acme')));
    expect(reason(await queue.why(second), 'group-turn').ahead).toBe(0);
    await queue.close();
  });

  test("a handler's pushback: the kind is held back until the time it gave", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('webhook', { url: 'https://example.com/1' });
    const [job] = await queue.claim();
    const until = await queue.rateLimited(job!, 60_000);
    expect(reason(await queue.why(id), 'pushed-back')).toEqual({ code: 'pushed-back', kind: 'webhook', untilMs: until });
    await queue.close();
  });
});

describe('why: waiting', () => {
  test('a flow parent waits for its children, named, and counts them down', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const flow = await queue.enqueueFlow({ kind: 'email', payload: mail(0), children: [{ kind: 'email', payload: mail(1) }, { kind: 'email', payload: mail(2) }] });
    const [a, b] = flow.children.map((child) => child.id) as [string, string];
    const answer = await queue.why(flow.id);
    expect(answer?.status).toBe('waiting-children');
    expect(reason(answer, 'waiting-children')).toEqual({ code: 'waiting-children', left: 2, children: [a, b] });
    const claimed = await queue.claim({ max: 10 });
    await queue.complete(claimed.find((job) => job.id === a)!, null);
    expect(reason(await queue.why(flow.id), 'waiting-children')).toEqual({ code: 'waiting-children', left: 1, children: [b] });
    await queue.close();
  });

  test('delayed until its run time; a failed attempt is a retry in its backoff until its due time', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const later = await queue.enqueue('email', mail(1), { delayMs: 60_000 });
    const runAt = (await queue.getJob(later))?.runAtMs;
    expect(reason(await queue.why(later), 'delayed')).toEqual({ code: 'delayed', untilMs: runAt, retry: false, attempts: 0 });
    const retried = await queue.enqueue('webhook', { url: 'https://example.com/1' });
    const [job] = await queue.claim();
    expect(await queue.fail(job!, 'HTTP 503')).toBe('delayed');
    const answer = await queue.why(retried);
    expect(answer?.status).toBe('delayed');
    expect(reason(answer, 'delayed')).toEqual({ code: 'delayed', untilMs: Number(await redis.zscore(queue.keys.delayed, retried)), retry: true, attempts: 1 });
    await queue.close();
  });

  test('a pending job is behind the jobs at higher priority and the jobs ahead of it in its list', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const plain = await queue.enqueue('email', mail(1));
    await queue.enqueue('email', mail(2), { priority: 5 });
    await queue.enqueue('email', mail(3), { priority: 9 });
    const target = await queue.enqueue('email', mail(4));
    const answer = await queue.why(target);
    expect(reason(answer, 'behind-higher-priority')).toEqual({ code: 'behind-higher-priority', jobs: 2, priority: 0 });
    expect(reason(answer, 'queued')).toEqual({ code: 'queued', list: 'pending', priority: 0, ahead: 1, atLeast: false });
    expect(codes(await queue.why(plain))).toContain('behind-higher-priority');
    await queue.close();
  });

  test('a plain pending job: how many jobs are ahead of it, and nothing else', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await liveWorker(queue, 'w-1');
    const ids: string[] = [];
    for (let n = 0; n < 4; n += 1) ids.push(await queue.enqueue('email', mail(n)));
    expect(await queue.why(ids[3]!)).toMatchObject({ status: 'pending', reasons: [{ code: 'queued', list: 'pending', priority: 0, ahead: 3, atLeast: false }] });
    expect(reason(await queue.why(ids[0]!), 'queued').ahead).toBe(0);
    await queue.close();
  });

  test('deeper in its list than the look scans, it says at least that many are ahead', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const fillers = Array.from({ length: WHY_SCAN_MAX + 1 }, (_, n) => `filler-${n}`);
    await redis.lpush(queue.keys.pending, ...fillers);
    const id = await queue.enqueue('email', mail(1));
    expect(reason(await queue.why(id), 'queued')).toEqual({ code: 'queued', list: 'pending', priority: 0, ahead: WHY_SCAN_MAX, atLeast: true });
    await queue.close();
  });

  test("a recipe client's job (its six fields, LPUSHed onto pending) gets its kind from its payload and its place in line", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const recipe = new RecipeClient(redis, queueName);
    await liveWorker(queue, 'w-1');
    await recipe.enqueue({ kind: 'email', recipient: 'a@example.com' });
    const id = await recipe.enqueue({ kind: 'email', recipient: 'b@example.com' });
    await queue.pause({ kind: 'email' });
    const answer = await queue.why(id);
    expect(answer).toMatchObject({ id, status: 'pending', kind: 'email' });
    expect(codes(answer)).toEqual(['kind-paused', 'queued']);
    expect(reason(answer, 'queued').ahead).toBe(1);
    await queue.close();
  });
});

describe('why: ended and running', () => {
  test('completed, failed (with its last error), cancelled: the state and when', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const done = await queue.enqueue('email', mail(1));
    const [job] = await queue.claim();
    await queue.complete(job!, 'sent');
    expect(await queue.why(done)).toMatchObject({ status: 'completed', reasons: [{ code: 'completed', atMs: (await queue.getJob(done))?.completedAtMs }] });
    const failing = await queue.enqueue('email', mail(2), { maxAttempts: 1 });
    const [attempt] = await queue.claim();
    expect(await queue.fail(attempt!, 'smtp down')).toBe('failed');
    const failed = await queue.why(failing);
    expect(failed?.status).toBe('failed');
    expect(reason(failed, 'failed')).toMatchObject({ atMs: (await queue.getJob(failing))?.failedAtMs, attempts: 1 });
    expect(reason(failed, 'failed').error).toContain('smtp down');
    const dropped = await queue.enqueue('email', mail(3));
    expect(await queue.cancel(dropped)).toEqual({ cancelled: true, wasRunning: false });
    expect(await queue.why(dropped)).toMatchObject({ status: 'cancelled', reasons: [{ code: 'cancelled', atMs: (await queue.getJob(dropped))?.cancelledAtMs }] });
    await queue.close();
  });

  test('expired: past its ttl it will not run, and once a claim meets it, it failed as expired', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', mail(1), { ttlMs: 1 });
    const expiresAtMs = (await queue.getJob(id))?.expiresAtMs;
    await expect.poll(async () => codes(await queue.why(id))).toEqual(['expired']);
    expect(reason(await queue.why(id), 'expired')).toEqual({ code: 'expired', expiresAtMs, atMs: null });
    expect(await queue.claim()).toEqual([]);
    const answer = await queue.why(id);
    expect(answer?.status).toBe('failed');
    expect(reason(answer, 'expired')).toEqual({ code: 'expired', expiresAtMs, atMs: (await queue.getJob(id))?.failedAtMs });
    await queue.close();
  });

  test('running: which worker claimed it (from the event log, none when it is off), since when, its lease until when', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, workerId: 'worker-7', eventLog: true });
    const id = await queue.enqueue('email', mail(1));
    const [job] = await queue.claim();
    expect(await queue.why(id)).toMatchObject({
      status: 'processing',
      reasons: [{ code: 'running', worker: 'worker-7', claimedAtMs: job!.claimedAtMs, leaseExpiresAtMs: job!.leaseExpiresAtMs }],
    });
    await queue.close();
    const unlogged = new Queue({ redis, queue: `${queueName}-quiet`, kinds, workerId: 'worker-8', eventLog: false });
    const quiet = await unlogged.enqueue('email', mail(2));
    await unlogged.claim();
    expect(reason(await unlogged.why(quiet), 'running').worker).toBeNull();
    await unlogged.purge();
    await unlogged.close();
  });

  test('an unknown id is null; an id that cannot be one is refused', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    expect(await queue.why('no-such-job')).toBeNull();
    await expect(queue.why('bad id {x}')).rejects.toSatisfy((error) => isJobsError(error, 'JOBS_INVALID_ARGUMENT'));
    await queue.close();
  });

  test('on a partitioned queue it answers from the partition that holds the job', async ({ redis, queueName }) => {
    const queue = new Queue<PayloadTypesOf<typeof kinds>>({ redis, queue: queueName, kinds, partitions: 3 });
    await queue.ensureLayout();
    await liveWorker(queue, 'w-1');
    const ids = await Promise.all([0, 1, 2, 3, 4, 5].map((n) => queue.enqueue('email', mail(n))));
    await queue.pause({ kind: 'email' });
    for (const id of ids) expect(await queue.why(id)).toMatchObject({ id, status: 'pending', reasons: [{ code: 'kind-paused' }, { code: 'queued' }] });
    await queue.close();
  });

  test('no live worker handles its kind: said for a waiting job until a worker of the kind heartbeats, and again once it leaves', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', mail(1));
    const later = await queue.enqueue('email', mail(2), { delayMs: 60_000 });
    expect(reason(await queue.why(id), 'no-live-worker')).toEqual({ code: 'no-live-worker', kind: 'email', liveWorkers: 0 });
    await liveWorker(queue, 'w-hooks', ['webhook']);
    expect(reason(await queue.why(id), 'no-live-worker')).toEqual({ code: 'no-live-worker', kind: 'email', liveWorkers: 1 });
    expect(codes(await queue.why(later))).toEqual(['delayed', 'no-live-worker']);
    await liveWorker(queue, 'w-mail', ['email']);
    expect(codes(await queue.why(id))).toEqual(['queued']);
    await leaveRegistry(queue.partitions[0]!.ctx, 'w-mail');
    expect(reason(await queue.why(id), 'no-live-worker').liveWorkers).toBe(1);
    // A running job is not waiting for a worker.
    const [job] = await queue.claim();
    expect(codes(await queue.why(job!.id))).toEqual(['running']);
    await queue.close();
  });

  test('on a partitioned queue every partition reads the registry of partition 0', async ({ redis, queueName }) => {
    const queue = new Queue<PayloadTypesOf<typeof kinds>>({ redis, queue: queueName, kinds, partitions: 3 });
    await queue.ensureLayout();
    await liveWorker(queue, 'w-mail', ['email']);
    const keys = Array.from({ length: 12 }, (_, n) => `key-${n}`);
    const mails = await Promise.all(keys.map((partitionKey, n) => queue.enqueue('email', mail(n), { partitionKey })));
    const hooks = await Promise.all(keys.map((partitionKey, n) => queue.enqueue('webhook', { url: `https://example.com/${n}` }, { partitionKey })));
    const held = new Set(hooks.map((id) => queue.partitions.indexOf(queue.partitionOf(id)!)));
    expect(held.size).toBeGreaterThan(1);
    expect(held.has(0)).toBe(true);
    for (const id of mails) expect(codes(await queue.why(id))).toEqual(['queued']);
    for (const id of hooks) expect(reason(await queue.why(id), 'no-live-worker')).toEqual({ code: 'no-live-worker', kind: 'webhook', liveWorkers: 1 });
    await queue.close();
  });

  test('a hash written by hand, holding numbers JSON cannot carry or another type, still gets an answer', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const dead = await queue.enqueue('email', mail(2), { maxAttempts: 1 });
    const [job] = await queue.claim();
    await queue.fail(job!, 'broke');
    await redis.hset(queue.keys.job(dead), 'failed_at_ms', '1e999', 'attempts', '-inf');
    expect(reason(await queue.why(dead), 'failed')).toMatchObject({ atMs: null, attempts: 0 });
    const id = await queue.enqueue('email', mail(1), { ttlMs: 3_600_000 });
    await redis.hset(queue.keys.job(id), 'expires_at_ms', 'inf', 'priority', 'nan');
    expect(codes(await queue.why(id))).toContain('queued');
    await redis.set(queue.keys.job('not-a-hash'), 'x');
    expect(await queue.why('not-a-hash')).toBeNull();
    await queue.close();
  });

  test('every reason code is one the script can give', async () => {
    const { readFile } = await import('node:fs/promises');
    const script = await readFile(new URL('../scripts/why.lua', import.meta.url), 'utf8');
    for (const code of WHY_REASON_CODES) expect(script, code).toContain(`'${code}'`);
  });
});
