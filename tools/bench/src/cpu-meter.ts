import type { Redis } from 'ioredis';

/** CPU time spent on a scenario's timed part, per job, in microseconds. */
export interface CpuPerJob {
  /** This Node process (producer and workers alike, every thread: V8's helpers included). */
  nodeCpuUs: number;
  /** The redis-servers measured, together (`INFO cpu`: user and system time). */
  redisCpuUs: number;
}

/** {@link CpuPerJob}, with each redis-server's share as well. */
export interface CpuPerJobByServer extends CpuPerJob {
  /** Each server's CPU per job, in µs, in the order the meter was given them; together `redisCpuUs`. */
  redisCpuUsByServer: number[];
}

/** User + system CPU seconds a redis-server has used since it started (`INFO cpu`). */
async function redisCpuSeconds(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  return Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1] ?? 0) + Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1] ?? 0);
}

/** The same for each of `servers` (every node of a cluster, say), asked together. */
async function cpuSecondsEach(servers: readonly Redis[]): Promise<number[]> {
  return Promise.all(servers.map(redisCpuSeconds));
}

/**
 * Measures the CPU that the benchmark's process and the Redis servers spend over a timed window.
 * Rates on a shared machine move with what else runs and where the OS places processes; the work
 * done per job moves much less, and says why one system is faster than another. The servers are
 * asked before the window opens and after it closes, so the asking is outside the timed part.
 */
export class CpuMeter {
  readonly #servers: readonly Redis[];
  #redisAtStart: number[] = [];
  #nodeAtStart: NodeJS.CpuUsage = { user: 0, system: 0 };

  /** `servers`: the redis-servers whose CPU counts (one, or every node of a cluster). */
  constructor(servers: readonly Redis[]) {
    this.#servers = servers;
  }

  /** Call right before the timed part starts. */
  async start(): Promise<void> {
    this.#redisAtStart = await cpuSecondsEach(this.#servers);
    this.#nodeAtStart = process.cpuUsage();
  }

  /** Call right after the timed part ends: the CPU spent since {@link start}, per job. */
  async stop(jobs: number): Promise<CpuPerJob> {
    const { nodeCpuUs, redisCpuUs } = await this.stopByServer(jobs);
    return { nodeCpuUs, redisCpuUs };
  }

  /**
   * {@link stop}, with each server's CPU per job too: which node did the work, where the servers
   * differ (a cluster's busiest master, say). The same readings, so the shares sum to the total.
   */
  async stopByServer(jobs: number): Promise<CpuPerJobByServer> {
    const node = process.cpuUsage(this.#nodeAtStart);
    const atEnd = await cpuSecondsEach(this.#servers);
    const redisCpuUsByServer = atEnd.map((seconds, i) => ((seconds - (this.#redisAtStart[i] ?? 0)) * 1e6) / jobs);
    const redisCpuUs = redisCpuUsByServer.reduce((sum, us) => sum + us, 0);
    return { nodeCpuUs: (node.user + node.system) / jobs, redisCpuUs, redisCpuUsByServer };
  }
}
