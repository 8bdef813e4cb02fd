import { startRedisServer, type RedisServer } from '@jobs/dev-redis';
import { isClusterRun, openRedis, waitFor, within } from '@jobs/testing';
import { describe, expect, test } from 'vitest';
import { Queue, RedisScheduleStore, ScheduleRunner, type FiredTick, type RedisClient } from '../src/index.ts';
import { kinds } from './fixtures.ts';
import { expectOneJobPerTick, fastSchedules, tickJobs } from './schedule-ticks.ts';

// Every write reaches the disk before its reply, as a server that must not lose a tick's state.
const DURABLE = ['--appendonly', 'yes', '--appendfsync', 'always'];

// This test crashes and restarts a redis-server of its own, not the run's Redis: a cluster run
// would only repeat it as it is.
describe.skipIf(isClusterRun())('schedule runners across Redis restarts', () => {
  test('two daemon runners and three worker runners, with Redis crashed and restarted twice and every runner restarted, make exactly one job per tick', async () => {
    let server: RedisServer = await startRedisServer({ name: 'schedules-restart', keepData: true, args: DURABLE });
    const { port, dataDir, url } = server;
    const queue = new Queue({ redis: url, queue: 'restarts', kinds });
    const connections = Array.from({ length: 5 }, () => openRedis(url));
    const runners: ScheduleRunner[] = [];
    try {
      const schedules = fastSchedules(queue);
      const every = 300;
      await schedules.upsert({ id: 'tick', kind: 'webhook', payload: { url: 'https://example.com/' }, every });
      const fired: FiredTick[] = [];
      const start = (n: number): ScheduleRunner => {
        const store = new RedisScheduleStore(connections[n] as RedisClient, queue.keys);
        const runner = new ScheduleRunner({ store, retryMs: 100, onFire: (tick) => fired.push(tick) });
        runner.start();
        return runner;
      };
      for (let n = 0; n < 5; n += 1) runners.push(start(n));
      // Ticks go on after the second restart (round 7) until the twelfth.
      const ticks = 12;
      for (let round = 0; round < ticks; round += 1) {
        await waitFor(async () => (await tickJobs(queue, 'tick')).length > round, { timeoutMs: 15_000 });
        if (round === 3 || round === 7) {
          // A crash between ticks or mid-fire, and a restart from the append-only file.
          await server.crash();
          server = await startRedisServer({ name: 'schedules-restart', port, dataDir, keepData: true, args: DURABLE });
        }
        // Restart one runner per tick, its replacement up before it stops.
        const n = round % 5;
        const old = runners[n] as ScheduleRunner;
        runners[n] = start(n);
        await within(old.stop(), 5_000, () => 'runner stop');
      }
      await within(Promise.all(runners.map((runner) => runner.stop())), 5_000, () => 'runners stop');
      const jobs = await tickJobs(queue, 'tick');
      expect(jobs.length).toBeGreaterThanOrEqual(ticks);
      // A tick that fell due while Redis was down runs late, once; the next is the first after it ran.
      expectOneJobPerTick(jobs, every);
      expect((await schedules.get('tick'))?.runs).toBe(jobs.length);
      // Every tick a runner heard it fire is one of those jobs (a fire whose reply the crash took
      // made its job, unheard).
      const jobIds = new Set(jobs.map((job) => job.jobId));
      for (const tick of fired) expect(jobIds.has(tick.jobId)).toBe(true);
    } finally {
      await Promise.all(runners.map((runner) => runner.stop()));
      for (const connection of connections) connection.disconnect();
      await queue.close();
      await server.stop();
    }
  });
});
