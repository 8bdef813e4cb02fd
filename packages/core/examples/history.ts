import { defineKinds, Queue } from '@jobs/core';

const kinds = defineKinds({ email: { schema: { type: 'object', properties: { recipient: { type: 'string' } }, required: ['recipient'] } } });

// metricsHistory: the enqueue scripts count each kind's jobs per minute and per hour, in Redis.
// Set it on the producers and the workers too: workers add their completed, failed and retried
// counts and run times once per heartbeat interval.
const queue = new Queue({ redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', queue: 'example-history', kinds, metricsHistory: true });
await queue.enqueueMany([1, 2, 3].map((n) => ({ kind: 'email' as const, payload: { recipient: `user${n}@example.com` } })));

// The last hour, a column per counter and one entry per minute (Redis time), oldest first.
const hour = await queue.history({ since: 3_600_000, kind: 'email' });
const total = (column: number[]): number => column.reduce((a, b) => a + b, 0);
console.log(hour.kinds, hour.stepMs, hour.atMs.length, total(hour.enqueued), hour.runMsP95.at(-1));
await queue.close();
