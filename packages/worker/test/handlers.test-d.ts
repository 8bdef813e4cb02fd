import { describe, expectTypeOf, test } from 'vitest';
import type { BatchContext, BatchJob, BatchResults, HandlerMap, PayloadTypesOf } from '../src/index.ts';
import type { kinds } from './kinds.ts';

type Payloads = PayloadTypesOf<typeof kinds>;
type Handlers = HandlerMap<Payloads>;

describe('handler map types', () => {
  test("a batch kind's jobs carry its payload type, with the single handler's context beside it", () => {
    const handlers: Handlers = {
      email: ({ recipient }) => recipient,
      webhook: {
        batch: { size: 50, minSize: 10, maxWaitMs: 200 },
        handler: (jobs, batch) => {
          expectTypeOf(jobs).toEqualTypeOf<readonly BatchJob<Payloads['webhook'], 'webhook'>[]>();
          expectTypeOf(jobs[0]!.payload.url).toEqualTypeOf<string>();
          expectTypeOf(jobs[0]!.attempt).toEqualTypeOf<number>();
          expectTypeOf(jobs[0]!.signal).toEqualTypeOf<AbortSignal>();
          expectTypeOf(jobs[0]!.kind).toEqualTypeOf<'webhook'>();
          expectTypeOf(batch).toEqualTypeOf<BatchContext<'webhook'>>();
          return jobs.map((job) => (job.payload.url.startsWith('https:') ? { posted: job.payload.url } : new Error('not https')));
        },
      },
      thumbnail: ({ width }) => width,
      invoice: { batch: { size: 10, maxWaitMs: 0 }, handler: async () => undefined },
    };
    expectTypeOf(handlers.webhook).not.toBeFunction();
  });

  test('a batch handler returns one result per job, or nothing, or a promise of either', () => {
    expectTypeOf<readonly unknown[]>().toExtend<BatchResults>();
    expectTypeOf<undefined>().toExtend<BatchResults>();
    const ok: Handlers['invoice'] = { batch: { size: 2, maxWaitMs: 10 }, handler: async (jobs) => jobs.map((job) => job.payload.cents) };
    void ok;
    // @ts-expect-error: a batch handler returns an array of results (one per job), not one result
    const single: Handlers['invoice'] = { batch: { size: 2, maxWaitMs: 10 }, handler: async () => 42 };
    void single;
  });

  test('batch options and payloads are checked', () => {
    // @ts-expect-error: maxWaitMs is required
    const noWait: Handlers['invoice'] = { batch: { size: 2 }, handler: () => undefined };
    // @ts-expect-error: size is required
    const noSize: Handlers['invoice'] = { batch: { maxWaitMs: 2 }, handler: () => undefined };
    // @ts-expect-error: an invoice has no url
    const wrongPayload: Handlers['invoice'] = { batch: { size: 2, maxWaitMs: 10 }, handler: (jobs) => jobs.map((job) => job.payload.url) };
    // @ts-expect-error: the object form needs its batch options
    const noBatch: Handlers['invoice'] = { handler: () => undefined };
    void [noWait, noSize, wrongPayload, noBatch];
  });
});
