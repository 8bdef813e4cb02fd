import { describe, expectTypeOf, test } from 'vitest';
import type { ChildResult, HandlerMap, IsolatedContext, IsolatedHandler, IsolatedHandlerEntry, PayloadTypesOf } from '../src/index.ts';
import type { kinds } from './kinds.ts';

type Payloads = PayloadTypesOf<typeof kinds>;

describe('isolated handler types', () => {
  test('an isolated entry stands for any kind in the handler map, beside functions and batch entries', () => {
    const handlers: HandlerMap<Payloads> = {
      email: ({ recipient }) => recipient,
      webhook: { isolate: 'process', module: '/srv/app/webhook.js', memoryMb: 256 },
      thumbnail: { isolate: 'thread', module: new URL('file:///srv/app/thumbnail.js'), pool: 2, graceMs: 0 },
      invoice: { batch: { size: 10, maxWaitMs: 0 }, handler: async () => undefined },
    };
    expectTypeOf(handlers.webhook).not.toBeFunction();
    // @ts-expect-error an isolation that does not exist
    const bad: IsolatedHandlerEntry = { isolate: 'fiber', module: '/srv/app/x.js' };
    void bad;
    // @ts-expect-error a module is a path or a URL
    const noModule: IsolatedHandlerEntry = { isolate: 'thread', module: 42 };
    void noModule;
  });

  test("the module author's handler gets its payload typed and the child's context: values, signal, the forwarded methods and ctx.log", () => {
    const handler: IsolatedHandler<Payloads['thumbnail'], 'thumbnail'> = async (payload, ctx) => {
      expectTypeOf(payload.width).toEqualTypeOf<number>();
      expectTypeOf(ctx.kind).toEqualTypeOf<'thumbnail'>();
      expectTypeOf(ctx.attempt).toEqualTypeOf<number>();
      expectTypeOf(ctx.enqueuedAtMs).toEqualTypeOf<number | undefined>();
      expectTypeOf(ctx.signal).toEqualTypeOf<AbortSignal>();
      expectTypeOf(ctx.progress).toEqualTypeOf<(value: unknown) => Promise<void>>();
      expectTypeOf(ctx.extendLease).toEqualTypeOf<(ms?: number) => Promise<void>>();
      expectTypeOf(ctx.children).returns.toEqualTypeOf<Promise<Record<string, ChildResult>>>();
      ctx.log('resized', payload.width);
      ctx.log.info({ width: payload.width }, 'resized');
      // @ts-expect-error the worker's logger is not forwarded whole: no child loggers
      ctx.log.child({});
      return { width: payload.width };
    };
    expectTypeOf(handler).parameter(1).toEqualTypeOf<IsolatedContext<'thumbnail'>>();
  });
});
