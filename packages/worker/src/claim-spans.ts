import type { LaneQueue } from './lane-queue.ts';
import type { WorkerTracing } from './worker-tracing.ts';

/** Now, in epoch ms with the monotonic clock's precision (a span's start time). */
function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * `queue` with a span for each of its claim calls that got jobs (`claim`, and the claims that
 * ride on completions): what a worker that traces runs on. A worker without tracing uses the
 * queue itself, so its claims pay nothing for this.
 */
export function withClaimSpans(queue: LaneQueue, tracing: WorkerTracing): LaneQueue {
  return {
    name: queue.name,
    options: queue.options,
    async claim(options) {
      const startTime = nowMs();
      const jobs = await queue.claim(options);
      tracing.claimed(startTime, jobs);
      return jobs;
    },
    waitForWork: (timeoutMs) => queue.waitForWork(timeoutMs),
    async completeManyAndClaim(items, options) {
      const startTime = nowMs();
      const reply = await queue.completeManyAndClaim(items, options);
      tracing.claimed(startTime, reply.next);
      return reply;
    },
    fail: (job, error, options) => queue.fail(job, error, options),
    extendLeases: (jobs, leaseMs) => queue.extendLeases(jobs, leaseMs),
    extendLease: (job, leaseMs) => queue.extendLease(job, leaseMs),
    progress: (job, value) => queue.progress(job, value),
    release: (jobs) => queue.release(jobs),
    rateLimited: (job, retryAfterMs, reason) => queue.rateLimited(job, retryAfterMs, reason),
    reclaimStuck: () => queue.reclaimStuck(),
    unparkFreed: () => queue.unparkFreed(),
    children: (id) => queue.children(id),
  };
}
