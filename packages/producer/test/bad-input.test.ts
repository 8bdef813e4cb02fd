import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createProducer, isJobsError } from '../src/index.ts';
import { kinds } from './kinds.ts';

describe('producer bad input', () => {
  test('options and arguments are checked, with the field named', async ({ redis, queueName }) => {
    expect(() => createProducer(null as never)).toThrow(expect.objectContaining({ code: 'JOBS_INVALID_ARGUMENT', field: 'options' }));
    expect(() => createProducer({ redis, queue: 'a*', kinds })).toThrow(expect.objectContaining({ field: 'queue' }));
    expect(() => createProducer({ redis, queue: queueName, kinds, commandTimeoutMs: -1 })).toThrow(expect.objectContaining({ field: 'commandTimeoutMs' }));
    expect(() => createProducer({ redis, queue: queueName, kinds, prefix: 'bull' } as never)).toThrow(expect.objectContaining({ code: 'JOBS_INVALID_ARGUMENT', field: 'options.prefix' }));
    const producer = createProducer({ redis, queue: queueName, kinds });
    for (const [call, field] of [
      [() => producer.waitForResult('abc', { timeoutMs: Number.NaN }), 'timeoutMs'],
      [() => producer.waitForResult('abc', { timeoutMs: -5 }), 'timeoutMs'],
      [() => producer.getJob(''), 'id'],
      [() => producer.cancel('x y'), 'id'],
      [() => producer.promote('x y'), 'id'],
      [() => producer.changePriority('ok-id', 2000), 'priority'],
      [() => producer.remove(''), 'id'],
      [() => producer.enqueue('email', { recipient: 'a@example.com' }, { delayMs: -1 }), 'options.delayMs'],
      // Unknown option keys are refused, the key named, nothing written.
      [() => producer.enqueue('email', { recipient: 'a@example.com' }, { ttl: 5 } as never), 'options.ttl'],
      [() => producer.enqueue('email', { recipient: 'a@example.com' }, { prority: 5 } as never), 'options.prority'],
      [() => producer.enqueueMany([{ kind: 'email', payload: { recipient: 'a@example.com' }, options: { delay: 5 } as never }]), 'options.delay'],
      [() => producer.enqueueFlow({ kind: 'email', payload: { recipient: 'a@example.com' }, options: { attempts: 3 } as never }), 'flow.options.attempts'],
      [() => producer.waitForResult('abc', { timeout: 5 } as never), 'options.timeout'],
      [() => producer.pause({ kind: 'email', all: true } as never), 'options.all'],
    ] as [() => Promise<unknown>, string][]) {
      const error = await call().catch((e: unknown) => e);
      expect(isJobsError(error, 'JOBS_INVALID_ARGUMENT'), field).toBe(true);
      expect((error as { field: string }).field).toBe(field);
    }
    expect((await producer.stats()).enqueuedTotal).toBe(0);
    await producer.close();
  });
});
