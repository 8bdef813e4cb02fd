import type { Queue, ScaleWorkersOptions, WorkersTold } from '@jobs/core';
import { describe, expectTypeOf, test } from 'vitest';
import type { Worker } from '../src/index.ts';

describe('quiet, resume and scale types', () => {
  test("a worker's quiet resolves once it claims nothing more; its concurrency and quiet state can be read, not assigned", () => {
    expectTypeOf<Worker<unknown>['quiet']>().returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf<Worker<unknown>['resumeClaiming']>().returns.toEqualTypeOf<void>();
    expectTypeOf<Worker<unknown>['setConcurrency']>().parameters.toEqualTypeOf<[concurrency: number]>();
    expectTypeOf<Worker<unknown>['concurrency']>().toEqualTypeOf<number>();
    expectTypeOf<Worker<unknown>['isQuiet']>().toEqualTypeOf<boolean>();
  });

  test("a queue's orders to its workers resolve with the ids told; a scale needs its concurrency", () => {
    expectTypeOf<Queue<unknown>['quietWorkers']>().returns.toEqualTypeOf<Promise<WorkersTold>>();
    expectTypeOf<Queue<unknown>['resumeWorkers']>().parameter(0).toEqualTypeOf<{ readonly workerId?: string } | undefined>();
    expectTypeOf<ScaleWorkersOptions>().toHaveProperty('concurrency').toEqualTypeOf<number>();
    // @ts-expect-error: a scale without a concurrency
    const missing: ScaleWorkersOptions = { workerId: 'w-1' };
    void missing;
  });
});
