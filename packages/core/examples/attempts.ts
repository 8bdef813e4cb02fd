import { defineKinds, Queue } from '@jobs/core';

const kinds = defineKinds({ email: { schema: { type: 'object', properties: { recipient: { type: 'string' } }, required: ['recipient'] } } });

// Keep the last 10 ended attempts per job with 8 KiB of each stack, and 200 log lines of 1 KiB (the defaults).
const queue = new Queue({
  redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  queue: 'example-attempts',
  kinds,
  workerId: 'example-worker',
  maxAttempts: 2,
  backoff: { type: 'fixed', delayMs: 0 },
  attemptHistory: { keep: 10, stackBytes: 8_192 },
  jobLogs: { lines: 200, lineBytes: 1_024 },
});

const id = await queue.enqueue('email', { recipient: 'alice@example.com' });
for (let attempt = 1; attempt <= 2; attempt += 1) {
  const [job] = await queue.claim();
  if (!job) break;
  // What a worker's ctx.log sends: a batch of lines, fenced by the claim.
  await queue.appendLogs(job, [{ atMs: Date.now(), line: `connecting to smtp (attempt ${attempt})` }]);
  const error = Object.assign(new Error('mailbox full', { cause: new Error('552 5.2.2') }), { code: 'MAILBOX_FULL' });
  await queue.fail(job, error); // retried, then dead-lettered
}

const job = await queue.getJob(id);
const history = await queue.attempts(id);
const logs = await queue.logs(id);
console.log(
  job?.error?.code, // 'MAILBOX_FULL': the one error form, beside last_error ('mailbox full')
  history?.entries.map((a) => `#${a.attempt} ${a.outcome} by ${a.workerId} in ${a.durationMs} ms: ${a.error?.message} <- ${a.error?.cause?.message}`),
  logs?.lines.map((l) => `#${l.attempt} ${l.line}`),
);
await queue.close();
