#!/usr/bin/env node
import { describeRedis } from '@jobs/core';
import { DAEMON_HELP, parseDaemonConfig, type DaemonConfig } from '../daemon-config.ts';
import { jsonLogger } from '../json-logger.ts';
import { startMetricsServer, type MetricsServer } from '../metrics-server.ts';
import { createReclaimer } from '../reclaimer.ts';
import { UsageError } from '../usage-error.ts';

async function main(): Promise<number> {
  let config: DaemonConfig;
  try {
    config = parseDaemonConfig(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`jobs-reclaimer: ${error.message}\nRun jobs-reclaimer --help for the options.\n`);
    return 2;
  }
  if (config.help) {
    process.stdout.write(`${DAEMON_HELP}\n`);
    return 0;
  }
  const log = jsonLogger({ level: config.logLevel });
  const reclaimer = createReclaimer({
    redis: config.redisUrl,
    ...(config.queues.length > 0 && { queues: config.queues }),
    intervalMs: config.intervalMs,
    batch: config.batch,
    visibilityMs: config.visibilityMs,
    eventLog: config.eventLog,
    logger: log,
  });
  log.info(
    { redis: describeRedis(config.redisUrl), queues: config.queues.length > 0 ? config.queues : 'all found', intervalMs: config.intervalMs, batch: config.batch },
    'jobs-reclaimer starting',
  );
  if (config.once) {
    await reclaimer.runOnce();
    await reclaimer.stop();
    return 0;
  }
  let server: MetricsServer | undefined;
  if (config.metricsPort !== undefined) {
    server = await startMetricsServer({ port: config.metricsPort, host: config.metricsHost, metrics: reclaimer.metrics, healthy: () => reclaimer.healthy() });
    log.info({ url: `http://${server.host}:${server.port}/metrics`, health: `http://${server.host}:${server.port}/healthz` }, 'serving metrics');
  }
  reclaimer.start();
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  log.info({ signal }, 'stopping');
  await reclaimer.stop();
  await server?.close();
  log.info({}, 'stopped');
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`jobs-reclaimer: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
