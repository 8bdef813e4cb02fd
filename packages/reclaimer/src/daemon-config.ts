import { parseArgs } from 'node:util';
import { assertQueueName, DEFAULT_EVENT_LOG_MAX_LEN, isJobsError } from '@jobs/core';
import { LOG_LEVELS, type LogLevel } from './json-logger.ts';
import { parseWholeNumber, UsageError } from './usage-error.ts';

/** The help text of `jobs-reclaimer`. */
export const DAEMON_HELP = `Usage: jobs-reclaimer [options]

Sweeps @jobs queues on an interval: returns the jobs of crashed workers (expired leases) to
pending, dead-letters jobs on their last attempt, promotes delayed jobs that came due, and drops
expired ids from the histories. Run as many replicas as you like: no job is handled twice.

Options (each also read from the environment variable in brackets; a flag wins):
  --redis-url URL            Redis to use [REDIS_URL] (default redis://127.0.0.1:6379;
                             a cluster: redis+cluster://host:port,host:port)
                             rediss:// for TLS; user and password in the URL for an ACL user
  --queue NAME               a queue to sweep; repeat for more [JOBS_QUEUES, comma-separated]
                             (default: every queue found in Redis, looked up every minute)
  --interval-ms N            time between sweeps [JOBS_INTERVAL_MS] (default 1000)
  --batch N                  most jobs per script call [JOBS_BATCH] (default 500)
  --visibility-ms N          lease given to claims of recipe clients [JOBS_VISIBILITY_MS] (default 30000)
  --event-log on|MAXLEN      write reclaims to the queues' event log, capped near MAXLEN (on:
                             100000), as their producers and workers do [JOBS_EVENT_LOG] (default: off)
  --metrics-port N           serve /metrics and /healthz on this port [JOBS_METRICS_PORT] (default: off)
  --metrics-host HOST        address to bind [JOBS_METRICS_HOST] (default 127.0.0.1)
  --log-level LEVEL          debug, info, warn or error [JOBS_LOG_LEVEL] (default info)
  --once                     sweep once and exit
  -h, --help                 show this help

Logs are JSON lines on stdout. SIGTERM or SIGINT finishes the sweep in flight and exits 0.`;

/** What `jobs-reclaimer` was asked to do. */
export interface DaemonConfig {
  help: boolean;
  redisUrl: string;
  queues: string[];
  intervalMs: number;
  batch: number;
  visibilityMs: number;
  /** The event log's cap, or false when the reclaimer writes none. */
  eventLog: { maxLen: number } | false;
  metricsPort: number | undefined;
  metricsHost: string;
  logLevel: LogLevel;
  once: boolean;
}

/** Reads flags and environment; throws {@link UsageError} on anything it cannot use. */
export function parseDaemonConfig(argv: readonly string[], env: NodeJS.ProcessEnv): DaemonConfig {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        'redis-url': { type: 'string' },
        queue: { type: 'string', multiple: true },
        'interval-ms': { type: 'string' },
        batch: { type: 'string' },
        'visibility-ms': { type: 'string' },
        'event-log': { type: 'string' },
        'metrics-port': { type: 'string' },
        'metrics-host': { type: 'string' },
        'log-level': { type: 'string' },
        once: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const queues = values.queue ?? (env.JOBS_QUEUES ? env.JOBS_QUEUES.split(',').map((q) => q.trim()).filter(Boolean) : []);
  for (const queue of queues) {
    try {
      assertQueueName(queue, '--queue');
    } catch (error) {
      throw new UsageError(isJobsError(error) ? error.message : String(error));
    }
  }
  const redisUrl = values['redis-url'] ?? env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  if (!/^rediss?(\+cluster)?:\/\//.test(redisUrl)) throw new UsageError('--redis-url must start with redis://, rediss://, redis+cluster:// or rediss+cluster://');
  const logLevel = (values['log-level'] ?? env.JOBS_LOG_LEVEL ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(logLevel)}`);
  const metricsPortRaw = values['metrics-port'] ?? env.JOBS_METRICS_PORT;
  const eventLogRaw = values['event-log'] ?? env.JOBS_EVENT_LOG;
  return {
    help: values.help,
    redisUrl,
    queues,
    intervalMs: parseWholeNumber('--interval-ms', values['interval-ms'] ?? env.JOBS_INTERVAL_MS, 1_000, 10, 3_600_000),
    batch: parseWholeNumber('--batch', values.batch ?? env.JOBS_BATCH, 500, 1, 100_000),
    visibilityMs: parseWholeNumber('--visibility-ms', values['visibility-ms'] ?? env.JOBS_VISIBILITY_MS, 30_000, 1, 12 * 3_600_000),
    eventLog: eventLogRaw === undefined || eventLogRaw === '' || eventLogRaw === 'off' ? false : { maxLen: parseWholeNumber('--event-log', eventLogRaw === 'on' ? undefined : eventLogRaw, DEFAULT_EVENT_LOG_MAX_LEN, 10, 100_000_000) },
    metricsPort: metricsPortRaw === undefined || metricsPortRaw === '' ? undefined : parseWholeNumber('--metrics-port', metricsPortRaw, 0, 0, 65_535),
    metricsHost: values['metrics-host'] ?? env.JOBS_METRICS_HOST ?? '127.0.0.1',
    logLevel,
    once: values.once,
  };
}
