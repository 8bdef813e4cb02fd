import { createProducer } from '@jobs/producer';
import { createWorker, defineKinds, PermanentError } from '@jobs/worker';

const kinds = defineKinds({
  embed: { schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false } },
});
const redis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const producer = createProducer({ redis, queue: 'example-batch', kinds });

// Stands in for a model API that takes many inputs per request.
async function embedMany(texts: string[], signal: AbortSignal): Promise<number[][]> {
  signal.throwIfAborted();
  return texts.map((text) => [text.length, text.split(' ').length]);
}

const sizes: number[] = [];
const worker = createWorker({
  redis,
  queue: 'example-batch',
  kinds,
  concurrency: 50, // a batch takes one slot per job
  handlers: {
    embed: {
      // Up to 50 jobs per call; a batch that is not full runs 100 ms after its first job came.
      batch: { size: 50, maxWaitMs: 100 },
      handler: async (jobs, { signal }) => {
        sizes.push(jobs.length);
        const texts = jobs.filter((job) => job.payload.text.trim() !== '');
        const vectors = await embedMany(texts.map((job) => job.payload.text), signal);
        // One entry per job, in the jobs' order: a value completes the job, an Error fails only it.
        return jobs.map((job) => {
          const at = texts.indexOf(job);
          return at === -1 ? new PermanentError(`job ${job.id}: nothing to embed`) : { vector: vectors[at] };
        });
      },
    },
  },
});

const texts = ['hello world', 'batch me', '   ', 'one more line'];
const ids = (await producer.enqueueMany(texts.map((text) => ({ kind: 'embed' as const, payload: { text } })))).map((job) => job.id);
const outcomes = await Promise.all(ids.map((id) => producer.waitForResult(id).catch((error: { lastError?: string }) => error.lastError)));
console.log(outcomes[0], outcomes[3]); // { vector: [ 11, 2 ] } { vector: [ 13, 3 ] }
console.log(outcomes[2]?.toString().startsWith('PermanentError')); // true: only that job failed, for good
console.log(sizes); // [ 4 ]: one call for the four jobs
await Promise.all([worker.close(), producer.close()]);
