import { defineKinds, Queue } from '@jobs/core';

const kinds = defineKinds({
  thumbnail: { schema: { type: 'object', properties: { image: { type: 'string' } }, required: ['image'] } },
  zip: { schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
});

const queue = new Queue({ redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', queue: 'example-flow', kinds });

// One call, one atomic script: the zip waits (status waiting-children) until both thumbnails are done.
const flow = await queue.enqueueFlow({
  kind: 'zip',
  payload: { name: 'album.zip' },
  options: { onChildFailure: 'fail' }, // the default: a thumbnail that fails for good fails the zip
  children: [
    { kind: 'thumbnail', payload: { image: 'a.png' } },
    { kind: 'thumbnail', payload: { image: 'b.png' } },
  ],
});

// Workers see the children first; the parent is claimable only once the last one completes.
for (const job of await queue.claim({ max: 10 })) {
  await queue.complete(job, { url: `https://cdn.example.com/${(job.payload as { image: string }).image}` });
}
const [zip] = await queue.claim();
if (zip?.id === flow.id) {
  const children = await queue.children(zip.id); // by child id: { status, kind, result }
  await queue.complete(zip, { files: Object.values(children).map((child) => (child.status === 'completed' ? child.result : null)) });
}

console.log(await queue.getJob(flow.id));
await queue.close();
