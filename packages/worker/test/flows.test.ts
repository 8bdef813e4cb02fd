import { createProducer } from '@jobs/producer';
import { redisTest as test, within } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker, isJobsError, type ChildResult, type HandlerMap, type PayloadTypesOf } from '../src/index.ts';
import { kinds, okHandlers } from './kinds.ts';

type Payloads = PayloadTypesOf<typeof kinds>;

describe('flows in a worker', () => {
  test("a parent's handler runs after its children, nested two deep, and reads their results through ctx.children()", async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const seen: Record<string, Record<string, ChildResult>> = {};
    const handlers: HandlerMap<Payloads> = {
      ...okHandlers,
      thumbnail: async (payload) => ({ thumb: `${payload.image}@${payload.width}` }),
      email: async (payload, ctx) => {
        seen[ctx.id] = await ctx.children();
        return { sentTo: payload.recipient, parts: Object.keys(seen[ctx.id] ?? {}).length };
      },
    };
    const worker = createWorker({ redis, queue: queueName, kinds, handlers, concurrency: 4 });
    const flow = await producer.enqueueFlow({
      kind: 'email',
      payload: { recipient: 'a@example.com' },
      children: [
        { kind: 'thumbnail', payload: { image: 'a.png', width: 64 } },
        { kind: 'email', payload: { recipient: 'b@example.com' }, children: [{ kind: 'thumbnail', payload: { image: 'b.png', width: 32 } }] },
      ],
    });
    const [a, mid] = flow.children as [(typeof flow.children)[0], (typeof flow.children)[0]];
    const b = (mid.children[0] as typeof a).id;
    expect(await producer.waitForResult(flow.id, { timeoutMs: 8_000 })).toEqual({ sentTo: 'a@example.com', parts: 2 });
    expect(seen[mid.id]).toEqual({ [b]: { status: 'completed', kind: 'thumbnail', result: { thumb: 'b.png@32' } } });
    expect(seen[flow.id]).toEqual({
      [a.id]: { status: 'completed', kind: 'thumbnail', result: { thumb: 'a.png@64' } },
      [mid.id]: { status: 'completed', kind: 'email', result: { sentTo: 'b@example.com', parts: 1 } },
    });
    await within(worker.close(), 8_000, () => 'worker close');
    await producer.close();
  });

  test("a child whose handler fails for good fails the parent, whose handler never runs", async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const parentsRun: string[] = [];
    const handlers: HandlerMap<Payloads> = {
      ...okHandlers,
      thumbnail: async () => {
        throw new Error('decoder crashed');
      },
      email: async (_payload, ctx) => (parentsRun.push(ctx.id), 'zipped'),
    };
    const worker = createWorker({ redis, queue: queueName, kinds, handlers });
    const flow = await producer.enqueueFlow({ kind: 'email', payload: { recipient: 'a@example.com' }, children: [{ kind: 'thumbnail', payload: { image: 'a.png', width: 1 } }] });
    const error = await producer.waitForResult(flow.id, { timeoutMs: 8_000 }).catch((e: unknown) => e);
    expect(isJobsError(error, 'JOBS_JOB_FAILED')).toBe(true);
    expect((error as { lastError: string }).lastError).toMatch(/^JOBS_CHILD_FAILED: child \S+ \(thumbnail\) failed: .*decoder crashed/);
    expect(parentsRun).toEqual([]);
    await within(worker.close(), 8_000, () => 'worker close');
    await producer.close();
  });
});
