import { Queue } from '@jobs/core';
import { redisTest as test, waitFor, within } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker, defineKinds } from '../src/index.ts';

const kinds = defineKinds({
  mail: { schema: { type: 'object' } },
  hook: { schema: { type: 'object' } },
});
// A worker of the mail service: it handles one kind of the queue.
const mailKinds = defineKinds({ mail: { schema: { type: 'object' } } });

describe('queue.why and the worker registry', () => {
  test("a running worker's kinds have a live worker; another kind has none, and neither has once the worker closed", async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    // Paused, so that the jobs wait while the worker runs.
    await queue.pause();
    const mail = await queue.enqueue('mail', {});
    const hook = await queue.enqueue('hook', {});
    const worker = createWorker({ redis, queue: queueName, kinds: mailKinds, heartbeatIntervalMs: 200, workerId: `why-test:${queueName}`, handlers: { mail: () => 1 } });
    await worker.ready();
    await waitFor(async () => (await queue.workers()).some((w) => w.id === worker.id), { what: 'the worker in the registry' });
    const codes = async (id: string) => ((await queue.why(id))?.reasons ?? []).map((reason) => reason.code);
    expect(await codes(mail)).toEqual(['queue-paused', 'queued']);
    expect((await queue.why(hook))?.reasons).toContainEqual({ code: 'no-live-worker', kind: 'hook', liveWorkers: 1 });
    await within(worker.close(), 15_000, () => 'worker close');
    expect((await queue.why(mail))?.reasons).toContainEqual({ code: 'no-live-worker', kind: 'mail', liveWorkers: 0 });
    await queue.close();
  });
});
