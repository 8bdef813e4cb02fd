/**
 * Redis's own time per claim call: `--jobs N` jobs (default 10,000) enqueued, then claimed one
 * per call on a private redis-server, and the claim script's mean time per call read from
 * `INFO commandstats` (fcall, usec_per_call). `--traced` stores a traceparent on every job
 * and claims as a tracing worker does (each claim also returns it). Five rounds, each on a
 * fresh queue; the median and the lowest are printed (the lowest is the least disturbed by
 * other work on the machine). Run: `pnpm --filter @jobs/bench run bench:claim-cost [--traced]`.
 */
import { defineKinds, Queue, type QueueConfig } from '@jobs/core';
import { startRedisServer } from '@jobs/dev-redis';

const kinds = defineKinds({ task: { schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false } } });
const jobsArg = process.argv.indexOf('--jobs');
const jobs = jobsArg > 0 ? Number(process.argv[jobsArg + 1]) : 10_000;
const traced = process.argv.includes('--traced');
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

/** The claim script's mean µs per call since the last reset, from INFO commandstats. */
function usecPerCall(info: string): number {
  const line = info.split('\n').find((l) => l.startsWith('cmdstat_fcall:'));
  const match = /usec_per_call=([\d.]+)/.exec(line ?? '');
  if (!match) throw new Error('no fcall in INFO commandstats');
  return Number(match[1]);
}

const server = await startRedisServer({ name: 'bench-claim-cost' });
const rounds: number[] = [];
for (let round = 0; round < 5; round += 1) {
  const options = { redis: server.url, queue: `claim-cost-${process.pid}-${round}`, kinds, ...(traced && { claimTraceparent: true }) } as QueueConfig<unknown>;
  const queue = new Queue(options as QueueConfig<{ task: { n: number } }>);
  for (let first = 0; first < jobs; first += 1_000) {
    const batch = Array.from({ length: Math.min(1_000, jobs - first) }, (_, i) => ({ kind: 'task' as const, payload: { n: first + i }, ...(traced && { options: { traceparent: TRACEPARENT } }) }));
    await queue.enqueueMany(batch as never);
  }
  await queue.client.config('RESETSTAT');
  let claimed = 0;
  for (let i = 0; i < jobs; i += 1) claimed += (await queue.claim({ max: 1 })).length;
  if (claimed !== jobs) throw new Error(`claimed ${claimed} of ${jobs}`);
  rounds.push(usecPerCall(await queue.client.info('commandstats')));
  await queue.purge();
  await queue.close();
}
await server.stop();
const sorted = [...rounds].sort((a, b) => a - b);
process.stdout.write(
  `${traced ? 'traced' : 'untraced'} claims, ${jobs} per round: ${rounds.map((r) => r.toFixed(2)).join(' / ')} µs per call (Redis time); median ${(sorted[2] as number).toFixed(2)}, lowest ${(sorted[0] as number).toFixed(2)}\n`,
);
