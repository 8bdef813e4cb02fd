import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createProducer, isJobsError } from '../src/index.ts';
import { kinds } from './kinds.ts';

describe('producer bad input', () => {
  test('options and arguments are checked, with the field named', async ({ redis, queueName }) => {
    expect(() => createProducer(null as never)).toThrow(expect.objectContaining({ code: 'JOBS_INVALID_ARGUMENT', field: 'options' }));
    expect(() => createProducer({ redis, queue: 'a*', kinds })).toThrow(expect.objectContaining({ field: 'queue' }));
    expect(() => createProducer({ redis, queue: queueName, kinds, commandTimeoutMs: -1 })).toThrow(expect.objectContaining({ field: 'commandTimeoutMs' }));
    const producer = createProducer({ redis, queue: queueName, kinds });
    for (const [call, field] of [
      [() => producer.waitForResult('abc', { timeoutMs: Number.NaN }), 'timeoutMs'],
      [() => producer.waitForResult('abc', { timeoutMs: -5 }), 'timeoutMs'],
      [() => producer.getJob(''), 'id'],
      [() => producer.cancel('x y'), 'id'],
      [() => producer.enqueue('email', { recipient: 'a@example.com' }, { delayMs: -1 }), 'options.delayMs'],
    ] as [() => Promise<unknown>, string][]) {
      const error = await call().catch((e: unknown) => e);
      expect(isJobsError(error, 'JOBS_INVALID_ARGUMENT'), field).toBe(true);
      expect((error as { field: string }).field).toBe(field);
    }
    await producer.close();
  });
});
