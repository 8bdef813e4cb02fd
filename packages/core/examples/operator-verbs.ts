import { defineKinds, Queue } from '@jobs/core';

const kinds = defineKinds({ report: { schema: { type: 'object', properties: { month: { type: 'string' } }, required: ['month'] } } });
const queue = new Queue({ redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', queue: 'example-ops', kinds });

// A report due tomorrow, wanted now: promote it (it still waits for a paused kind or its group).
const later = await queue.enqueue('report', { month: '2026-01' }, { delayMs: 86_400_000 });
const promoted = await queue.promote(later);                  // { promoted: true }

// An urgent one jumps the line: priority 10 starts before every job at 0.
const urgent = await queue.enqueue('report', { month: '2026-02' });
const changed = await queue.changePriority(urgent, 10);       // { changed: true, priority: 10 }
const prioritized = (await queue.list('prioritized')).map((job) => job.id);

// One enqueued by mistake: delete it, its idempotency key with it.
const mistake = await queue.enqueue('report', { month: '1999-12' }, { idempotencyKey: 'report:1999-12' });
const removed = await queue.remove(mistake);                  // { removed: true }
const again = await queue.enqueue('report', { month: '1999-12' }, { idempotencyKey: 'report:1999-12' });

// Pause a kind, saying who did: why() reports it.
await queue.pause({ kind: 'report', by: 'alice@ops' });
const paused = (await queue.why(urgent))?.reasons.find((reason) => reason.code === 'kind-paused');

console.log({ promoted, changed, prioritized, removed, newJob: again !== mistake, pausedBy: paused?.code === 'kind-paused' ? paused.pausedBy : undefined });
await queue.resume({ kind: 'report' });
for (const id of [later, urgent, again]) await queue.remove(id);
await queue.close();
