import { defineKinds, JobQueue, type RedisClient } from '@jobs/core';
import type { DashboardDataSource } from './data-source.ts';

/** What the dashboard uses of a `JobQueue`: any queue fits, whatever its kinds. */
export type DashboardQueue = Pick<JobQueue<unknown>, 'name' | 'stats' | 'list' | 'getJob' | 'retry' | 'retryFailed' | 'cancel' | 'purge'>;

/** The most dead-lettered jobs one redrive call moves (one script call each). */
const REDRIVE_BATCH = 500;

/**
 * A {@link DashboardDataSource} over `JobQueue`s: the queues given, or those a function returns
 * when asked (for a set that changes, as the daemon's does).
 */
export function jobQueueSource(queues: readonly DashboardQueue[] | (() => readonly DashboardQueue[])): DashboardDataSource {
  const all = typeof queues === 'function' ? queues : () => queues;
  const byName = (name: string): DashboardQueue => {
    const queue = all().find((candidate) => candidate.name === name);
    // The routes check the name against queueNames() first; this guards a set that just changed.
    if (!queue) throw new Error(`no queue ${JSON.stringify(name)}`);
    return queue;
  };
  return {
    queueNames: () => all().map((queue) => queue.name).sort(),
    stats: (name) => byName(name).stats(),
    list: (name, state, page) => byName(name).list(state, page),
    getJob: (name, id) => byName(name).getJob(id),
    retry: async (name, id) => (await byName(name).retry([id]))[0] ?? 'not_found',
    retryFailed: async (name, max) => {
      const queue = byName(name);
      let left = max;
      let redriven = 0;
      while (left > 0) {
        const batch = Math.min(REDRIVE_BATCH, left);
        const round = await queue.retryFailed({ batch });
        redriven += round.retried.length;
        left -= batch;
        if (!round.more) break;
      }
      return redriven;
    },
    cancel: (name, id) => byName(name).cancel(id),
    purge: (name) => byName(name).purge(),
  };
}

const empty = defineKinds({});

/**
 * The queues named by `names()`, each opened once on `client` (a queue that needs no kinds: the
 * dashboard reads and redrives, it never validates payloads).
 */
export function namedQueues(client: RedisClient, names: () => readonly string[]): () => JobQueue<unknown>[] {
  const open = new Map<string, JobQueue<unknown>>();
  return () =>
    names().map((name) => {
      let queue = open.get(name);
      if (!queue) {
        queue = new JobQueue({ redis: client, queue: name, kinds: empty }) as JobQueue<unknown>;
        open.set(name, queue);
      }
      return queue;
    });
}
