#!/usr/bin/env node
import { describeRedis } from '@jobs/core';
import { exitQuietlyOnClosedPipe } from '../command-line.ts';
import { parseDaemonCommandLine } from '../daemon-config.ts';
import { jsonLogger } from '../json-logger.ts';
import { startMetricsServer, type MetricsServer } from '../metrics-server.ts';
import { startDaemonDashboard } from '../dashboard/daemon-dashboard.ts';
import type { DashboardServer } from '@jobs/dashboard';
import { ReclaimerMetrics } from '../metrics.ts';
import { createReclaimer, type Reclaimer } from '../reclaimer.ts';

/** Why a port could not be bound, in words an operator acts on. */
function bindFailure(error: unknown, what: string, host: string, port: number, flag: string): string {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `cannot serve ${what} on ${host}:${port}`;
  if (code === 'EADDRINUSE') return `${where}: the port is in use (another jobs-reclaimer?); choose another with ${flag}${flag === '--metrics-port' ? ', or 0 to turn it off' : ''}`;
  if (code === 'EACCES') return `${where}: not allowed to bind that port`;
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return `${where}: this machine has no such address`;
  return `${where}: ${error instanceof Error ? error.message : String(error)}`;
}

async function main(): Promise<number> {
  exitQuietlyOnClosedPipe();
  const line = await parseDaemonCommandLine(process.argv.slice(2), process.env);
  if ('exitCode' in line) return line.exitCode;
  const config = line.run;
  const log = jsonLogger({ level: config.logLevel });
  log.info(
    { redis: describeRedis(config.redisUrl), queues: config.queues.length > 0 ? config.queues : 'all found', intervalMs: config.intervalMs, batch: config.batch },
    'jobs-reclaimer starting',
  );
  const options = {
    redis: config.redisUrl,
    ...(config.queues.length > 0 && { queues: config.queues }),
    intervalMs: config.intervalMs,
    batch: config.batch,
    visibilityMs: config.visibilityMs,
    eventLog: config.eventLog,
    logger: log,
  };
  if (config.once) {
    // A sweep that failed (Redis away, a wrong password) is logged; it also sets the exit code,
    // so that a cron job or a CI step that runs `--once` sees it.
    const reclaimer = createReclaimer(options);
    let failed = false;
    reclaimer.on('error', () => {
      failed = true;
    });
    await reclaimer.runOnce();
    await reclaimer.stop();
    return failed ? 1 : 0;
  }
  // The ports are bound before the reclaimer connects: a port that is taken ends the process at
  // once, with nothing open that could keep it alive (a supervisor restarts it, or says why).
  const metrics = new ReclaimerMetrics();
  const started: { reclaimer?: Reclaimer } = {};
  let server: MetricsServer | undefined;
  if (config.metricsPort !== undefined) {
    try {
      server = await startMetricsServer({
        port: config.metricsPort,
        host: config.metricsHost,
        metrics,
        healthy: () => started.reclaimer?.healthy() ?? Promise.resolve({ ok: false, error: 'starting' }),
      });
    } catch (error) {
      log.error({ err: error, port: config.metricsPort, host: config.metricsHost }, bindFailure(error, '/metrics', config.metricsHost, config.metricsPort, '--metrics-port'));
      return 1;
    }
    log.info({ url: `http://${server.host}:${server.port}/metrics`, health: `http://${server.host}:${server.port}/healthz` }, 'serving metrics');
  } else {
    log.info({}, 'metrics off (--metrics-port 0)');
  }
  let dashboard: DashboardServer | undefined;
  if (config.dashboardPort !== undefined) {
    try {
      dashboard = await startDaemonDashboard({ redis: config.redisUrl, queues: () => started.reclaimer?.queues ?? [], port: config.dashboardPort, host: config.dashboardHost, env: process.env, logger: log });
    } catch (error) {
      log.error({ err: error, port: config.dashboardPort, host: config.dashboardHost }, bindFailure(error, 'the dashboard', config.dashboardHost, config.dashboardPort, '--dashboard-port'));
      await server?.close();
      return 1;
    }
  }
  const reclaimer = createReclaimer({ ...options, metrics });
  started.reclaimer = reclaimer;
  reclaimer.start();
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  log.info({ signal }, 'stopping');
  await reclaimer.stop();
  await server?.close();
  await dashboard?.close();
  log.info({}, 'stopped');
  return 0;
}

// A daemon that failed exits at once: nothing left open (a socket, a timer) may keep it alive.
main().then(
  (code) => {
    if (code === 0) process.exitCode = 0;
    else process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(`jobs-reclaimer: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
