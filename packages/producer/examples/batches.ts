import { createProducer, defineKinds } from '@jobs/producer';

const kinds = defineKinds({
  email: { schema: { type: 'object', properties: { recipient: { type: 'string' } }, required: ['recipient'], additionalProperties: false } },
  report: { schema: { type: 'object', properties: { campaign: { type: 'string' } }, required: ['campaign'], additionalProperties: false } },
});

const producer = createProducer({ redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', queue: 'example-batches', kinds });

// Send the campaign, then one report once every email has been sent. The callback is a job:
// enqueued once, by the script that ends the last email.
const batch = producer.batch({
  id: 'campaign-december',
  onSuccess: { kind: 'report', payload: { campaign: 'december' } },
  onDeath: { kind: 'report', payload: { campaign: 'december (with bounces)' } },
});
const recipients = Array.from({ length: 2_500 }, (_, i) => `user${i}@example.com`);
// Checked whole first, then written 1,000 per call.
await batch.add(recipients.map((recipient) => ({ kind: 'email', payload: { recipient } })));
const state = await batch.seal();
console.log(state.total, state.pending, state.sealed); // 2500 2500 true
// Workers now run the emails; `jobsctl batches -q example-batches` (or batch.state()) follows it.

await producer.close();
