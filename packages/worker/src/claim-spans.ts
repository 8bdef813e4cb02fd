import type { LaneQueue } from './lane-queue.ts';
import type { WorkerTracing } from './worker-tracing.ts';

/** Now, in epoch ms with the monotonic clock's precision (a span's start time). */
function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * `queue` with a span for each of its claim calls that got jobs (`claim`, and the claims that
 * ride on completions): what a worker that traces runs on. Every other call goes to `queue`
 * itself. A worker without tracing uses the queue itself, so its claims pay nothing for this.
 */
export function withClaimSpans(queue: LaneQueue, tracing: WorkerTracing): LaneQueue {
  const traced: Pick<LaneQueue, 'claim' | 'completeManyAndClaim'> = {
    async claim(options) {
      const startTime = nowMs();
      const jobs = await queue.claim(options);
      tracing.claimed(startTime, jobs);
      return jobs;
    },
    async completeManyAndClaim(items, options) {
      const startTime = nowMs();
      const reply = await queue.completeManyAndClaim(items, options);
      tracing.claimed(startTime, reply.next);
      return reply;
    },
  };
  // The other lane verbs, bound to the queue once each, so a verb added to the lane needs no line here.
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(queue, {
    get(target, key) {
      if (key === 'claim' || key === 'completeManyAndClaim') return traced[key];
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      let method = bound.get(key);
      if (method === undefined) {
        method = (value as (...args: unknown[]) => unknown).bind(target);
        bound.set(key, method);
      }
      return method;
    },
  });
}
