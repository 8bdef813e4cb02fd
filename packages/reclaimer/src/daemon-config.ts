import { assertQueueName, DEFAULT_EVENT_LOG_MAX_LEN, isJobsError } from '@jobs/core';
import { Option, type Command } from 'commander';
import { assertDaemonDashboard } from './dashboard/daemon-dashboard.ts';
import { fromFlagOrEnv, newProgram, parseCommandLine, type CommandLine } from './command-line.ts';
import { LOG_LEVELS, type LogLevel } from './json-logger.ts';
import { checkRedisUrl, parseWholeNumber, UsageError } from './usage-error.ts';
import { VERSION } from './version.ts';

/** Where `jobs-reclaimer` serves `/metrics` and `/healthz` unless told otherwise. */
export const DEFAULT_METRICS_PORT = 9464;

/** What `jobs-reclaimer` was asked to do. */
export interface DaemonConfig {
  redisUrl: string;
  queues: string[];
  intervalMs: number;
  batch: number;
  visibilityMs: number;
  /** The event log's cap, or false when the reclaimer writes none. */
  eventLog: { maxLen: number } | false;
  /** The port of `/metrics` and `/healthz`; undefined when turned off (`--metrics-port 0`). */
  metricsPort: number | undefined;
  metricsHost: string;
  /** The dashboard's port and address; undefined port: no dashboard. */
  dashboardPort: number | undefined;
  dashboardHost: string;
  logLevel: LogLevel;
  once: boolean;
}

interface DaemonFlags {
  redisUrl?: string;
  queue?: string[];
  intervalMs?: string;
  batch?: string;
  visibilityMs?: string;
  eventLog?: string;
  metricsPort?: string;
  metricsHost?: string;
  dashboardPort?: string;
  dashboardHost?: string;
  logLevel?: string;
  once?: boolean;
}

const DESCRIPTION = [
  'Sweeps @jobs queues on an interval: returns the jobs of crashed workers (expired leases) to pending, dead-letters jobs on their last attempt, promotes delayed jobs that came due, and drops expired ids from the histories. Run as many replicas as you like: no job is handled twice.',
  'Each option can also come from the environment variable in brackets; a flag wins.',
].join('\n\n');

const AFTER = `
Logs are JSON lines on stdout (pino). /healthz answers 503 when Redis does not answer or the
last 3 sweeps failed. SIGTERM or SIGINT finishes the sweep in flight and exits 0; a port that
cannot be bound exits 1 at once. Wrong flags exit 2.`;

function repeat(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** The command line of `jobs-reclaimer`; its action hands the flags to `take`. */
function daemonProgram(take: (flags: DaemonFlags) => void): Command {
  return newProgram('jobs-reclaimer', VERSION, DESCRIPTION)
    .option('--redis-url <url>', 'Redis to use [REDIS_URL] (default redis://127.0.0.1:6379; rediss:// for TLS; user and password in the URL for an ACL user; a cluster: redis+cluster://host:port,host:port)')
    .option('--queue <name>', 'a queue to sweep; repeat for more [JOBS_QUEUES, comma-separated] (default: every queue found in Redis, looked up every minute)', repeat)
    .option('--interval-ms <n>', 'time between sweeps [JOBS_INTERVAL_MS] (default 1000)')
    .option('--batch <n>', 'most jobs per script call [JOBS_BATCH] (default 500)')
    .option('--visibility-ms <n>', 'lease given to claims of recipe clients [JOBS_VISIBILITY_MS] (default 30000)')
    .option('--event-log <on|maxlen>', "write reclaims to the queues' event log, capped near MAXLEN (on: 100000), as their producers and workers do [JOBS_EVENT_LOG] (default: off)")
    .option('--metrics-port <n>', `serve /metrics and /healthz on this port; 0 turns them off [JOBS_METRICS_PORT] (default ${DEFAULT_METRICS_PORT})`)
    .option('--metrics-host <host>', 'address to bind [JOBS_METRICS_HOST] (default 127.0.0.1; 0.0.0.0 in a container)')
    .option('--dashboard-port <n>', 'serve the ops dashboard on this port, 0 for any free one [JOBS_DASHBOARD_PORT] (default: off); tokens only from JOBS_DASHBOARD_TOKEN / JOBS_DASHBOARD_VIEWER_TOKEN / JOBS_DASHBOARD_TOKENS (label:role:token,...), and JOBS_DASHBOARD_SESSION_SECRET (32+ characters) so that replicas accept each other\'s sessions')
    .option('--dashboard-host <host>', 'address to bind [JOBS_DASHBOARD_HOST] (default 127.0.0.1; another address needs a token)')
    .addOption(new Option('--log-level <level>', `${LOG_LEVELS.join(', ')} [JOBS_LOG_LEVEL] (default info)`))
    .option('--once', 'sweep once and exit (1 if a sweep failed)')
    .addHelpText('after', AFTER)
    .action((flags: DaemonFlags) => take(flags));
}

function checkQueue(name: string, queue: string): void {
  try {
    assertQueueName(queue, name);
  } catch (error) {
    throw new UsageError(isJobsError(error) ? error.message : String(error));
  }
}

/** `--event-log`: off (absent, empty or `off`), `on` (the default cap) or a cap. */
function eventLogConfig({ raw, name }: { raw: string | undefined; name: string }): { maxLen: number } | false {
  if (raw === undefined || raw === '' || raw === 'off') return false;
  return { maxLen: parseWholeNumber(name, raw === 'on' ? undefined : raw, DEFAULT_EVENT_LOG_MAX_LEN, 10, 100_000_000) };
}

/** Turns flags and environment into a {@link DaemonConfig}; throws {@link UsageError} naming the flag or variable at fault. */
export function daemonConfig(flags: DaemonFlags, env: NodeJS.ProcessEnv): DaemonConfig {
  let queues: string[];
  if (flags.queue) {
    queues = flags.queue;
    for (const queue of queues) checkQueue('--queue', queue);
  } else {
    queues = (env.JOBS_QUEUES ?? '').split(',').map((queue) => queue.trim()).filter(Boolean);
    for (const queue of queues) checkQueue('JOBS_QUEUES', queue);
  }
  const redis = fromFlagOrEnv(flags.redisUrl, '--redis-url', env, 'REDIS_URL');
  const level = fromFlagOrEnv(flags.logLevel, '--log-level', env, 'JOBS_LOG_LEVEL');
  const logLevel = (level.raw ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new UsageError(`${level.name} must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(logLevel)}`);
  const number = (flagValue: string | undefined, flag: string, variable: string, fallback: number, min: number, max: number): number => {
    const { raw, name } = fromFlagOrEnv(flagValue, flag, env, variable);
    return parseWholeNumber(name, raw, fallback, min, max);
  };
  const metricsPort = number(flags.metricsPort, '--metrics-port', 'JOBS_METRICS_PORT', DEFAULT_METRICS_PORT, 0, 65_535);
  const dashboardPort = fromFlagOrEnv(flags.dashboardPort, '--dashboard-port', env, 'JOBS_DASHBOARD_PORT');
  const dashboardHost = fromFlagOrEnv(flags.dashboardHost, '--dashboard-host', env, 'JOBS_DASHBOARD_HOST').raw ?? '127.0.0.1';
  if (dashboardPort.raw !== undefined) assertDaemonDashboard(dashboardHost, env);
  return {
    redisUrl: checkRedisUrl(redis.name, redis.raw ?? 'redis://127.0.0.1:6379'),
    queues,
    intervalMs: number(flags.intervalMs, '--interval-ms', 'JOBS_INTERVAL_MS', 1_000, 10, 3_600_000),
    batch: number(flags.batch, '--batch', 'JOBS_BATCH', 500, 1, 100_000),
    visibilityMs: number(flags.visibilityMs, '--visibility-ms', 'JOBS_VISIBILITY_MS', 30_000, 1, 12 * 3_600_000),
    eventLog: eventLogConfig(fromFlagOrEnv(flags.eventLog, '--event-log', env, 'JOBS_EVENT_LOG')),
    metricsPort: metricsPort === 0 ? undefined : metricsPort,
    metricsHost: fromFlagOrEnv(flags.metricsHost, '--metrics-host', env, 'JOBS_METRICS_HOST').raw ?? '127.0.0.1',
    dashboardPort: dashboardPort.raw === undefined ? undefined : parseWholeNumber(dashboardPort.name, dashboardPort.raw, 0, 0, 65_535),
    dashboardHost,
    logLevel,
    once: flags.once ?? false,
  };
}

/**
 * Reads the command line and environment of `jobs-reclaimer`: the config to run, or an exit
 * code once help, the version or a usage error has been printed.
 */
export async function parseDaemonCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<CommandLine<DaemonConfig>> {
  let config: DaemonConfig | undefined;
  const program = daemonProgram((flags) => {
    config = daemonConfig(flags, env);
  });
  return parseCommandLine(program, argv, () => config);
}
