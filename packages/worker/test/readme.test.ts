import { readFileSync } from 'node:fs';
import { redisTest as test } from '@jobs/testing';
import { describe, expect, vi } from 'vitest';

const example = readFileSync(new URL('../examples/worker.ts', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README example', () => {
  test('the README shows examples/worker.ts as it is', () => {
    expect(readme).toContain(example.trim());
  });

  // The consumer test bundles it (ESM and CJS) and runs it.
  test('the README shows examples/observed-worker.ts as it is', () => {
    expect(readme).toContain(readFileSync(new URL('../examples/observed-worker.ts', import.meta.url), 'utf8').trim());
  });

  test('examples/worker.ts runs: it completes an email job and fails a bad invoice for good', async ({ redisUrl, redis }) => {
    process.env.REDIS_URL = redisUrl;
    const before = { SIGTERM: process.listeners('SIGTERM'), SIGINT: process.listeners('SIGINT') };
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { worker, kinds } = await import('../examples/worker.ts');
    const { createProducer } = await import('@jobs/producer');
    const producer = createProducer({ redis, queue: 'example-mail', kinds });
    try {
      const mail = await producer.enqueue('email', { recipient: 'dora@example.com' });
      expect(await producer.waitForResult(mail)).toEqual({ sentTo: 'dora@example.com', subject: '(none)', attempt: 1 });
      const bill = await producer.enqueue('invoice', { customerId: 'acct_1', amountCents: 5 });
      expect(await producer.waitForResult(bill).catch((e: unknown) => e)).toMatchObject({ code: 'JOBS_JOB_FAILED', lastError: 'PermanentError: no such customer: acct_1' });
      // The worker logs after its fail call returns; the producer may hear of the failure first.
      await vi.waitFor(() => expect(errors).toHaveBeenCalledWith(`job ${bill} failed for good:`, expect.anything()));
    } finally {
      await worker.close({ graceMs: 1_000 });
      await producer.close();
      errors.mockRestore();
      for (const signal of ['SIGTERM', 'SIGINT'] as const) {
        for (const listener of process.listeners(signal)) if (!before[signal].includes(listener)) process.off(signal, listener);
      }
    }
  });
});
