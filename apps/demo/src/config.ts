import { parseArgs } from 'node:util';

/** The help text of the demo server. */
export const DEMO_HELP = `Usage: jobs-demo [options]

Serves the @jobs demo: enqueue jobs of four kinds, run a pool of worker processes with
latency, failure and hang (crash) rates, reclaim crashed work, and watch it all live.

Options (environment variable in brackets):
  --port N              HTTP port (default 8794)
  --host HOST           address to listen on (default 127.0.0.1)
  --redis-url URL       Redis to use [REDIS_URL]
  --redis-host HOST     Redis host, as in the recipe's demos [REDIS_HOST]
  --redis-port N        Redis port [REDIS_PORT]
  --visibility-ms N     lease length of a claim [VISIBILITY_MS] (default 5000)
  --queue-name NAME     queue to use (default jobs)
  -h, --help            show this help

With no Redis given, a private redis-server is started on a free loopback port (data under
.redis-data/) and stopped on exit.`;

/** What the demo server was asked to do. */
export interface DemoConfig {
  help: boolean;
  port: number;
  host: string;
  /** The Redis URL, or undefined for the embedded server. */
  redisUrl: string | undefined;
  visibilityMs: number;
  queueName: string;
}

/** A command line the demo cannot run: exit code 2. */
export class DemoUsageError extends Error {}

function whole(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new DemoUsageError(`${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  const value = Number(raw);
  if (value < min || value > max) throw new DemoUsageError(`${name} must be a whole number from ${min} to ${max}, got ${raw}`);
  return value;
}

/** Reads flags, then the environment, then defaults. */
export function parseDemoConfig(argv: readonly string[], env: NodeJS.ProcessEnv): DemoConfig {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'redis-url': { type: 'string' },
        'redis-host': { type: 'string' },
        'redis-port': { type: 'string' },
        'visibility-ms': { type: 'string' },
        'queue-name': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    throw new DemoUsageError((error as Error).message);
  }
  let redisUrl = values['redis-url'] ?? env.REDIS_URL;
  const redisHost = values['redis-host'] ?? env.REDIS_HOST;
  const redisPortRaw = values['redis-port'] ?? env.REDIS_PORT;
  if (redisUrl === undefined && (redisHost !== undefined || redisPortRaw !== undefined)) {
    const port = whole('--redis-port', redisPortRaw, 6379, 1, 65_535);
    const host = redisHost ?? '127.0.0.1';
    if (!/^[A-Za-z0-9.:[\]-]+$/.test(host)) throw new DemoUsageError(`--redis-host ${JSON.stringify(host)} is not a host name`);
    redisUrl = `redis://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
  }
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) throw new DemoUsageError('--redis-url must start with redis:// or rediss://');
  const queueName = values['queue-name'] ?? 'jobs';
  if (!/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/.test(queueName)) throw new DemoUsageError(`--queue-name ${JSON.stringify(queueName)} is not a valid queue name`);
  return {
    help: values.help,
    port: whole('--port', values.port, 8794, 0, 65_535),
    host: values.host ?? '127.0.0.1',
    redisUrl,
    visibilityMs: whole('--visibility-ms', values['visibility-ms'] ?? env.VISIBILITY_MS, 5_000, 100, 3_600_000),
    queueName,
  };
}
