import { defineKinds, Queue } from '@jobs/core';

const kinds = defineKinds({ email: { schema: { type: 'object', properties: { recipient: { type: 'string' } }, required: ['recipient'] } } });

// eventLog: every state change goes to the stream queue:{example-log}:log, capped near maxLen.
const queue = new Queue({ redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', queue: 'example-log', kinds, eventLog: { maxLen: 10_000 }, workerId: 'example-worker' });

// Follow from now: resolved before it returns, so nothing enqueued after this line is missed.
const follower = await queue.events({ from: '$' });

const id = await queue.enqueue('email', { recipient: 'alice@example.com' });
const [job] = await queue.claim();
if (job) await queue.complete(job, { sent: true });

const seen: string[] = [];
for await (const item of follower) {
  if (item.type === 'gap') continue; // the capped log was trimmed past our cursor: resync from state
  seen.push(`${item.event} #${item.attempt} by ${item.worker ?? '-'}`);
  if (item.jobId === id && item.event === 'completed') break; // save follower.cursor to resume later
}

// A job's own history, read from the ids its hash keeps (no scan of the log).
const timeline = await queue.timeline(id);
console.log(seen, timeline?.events.map((e) => e.event));
await queue.close();
