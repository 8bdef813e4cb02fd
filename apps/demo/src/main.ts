#!/usr/bin/env node
import type { AddressInfo } from 'node:net';
import { startRedisServer, type RedisServer } from '@jobs/dev-redis';
import { describeRedis } from '@jobs/producer';
import { DEMO_HELP, DemoUsageError, parseDemoConfig, type DemoConfig } from './config.ts';
import { DemoApp } from './demo-app.ts';
import { createDemoServer } from './server.ts';

async function main(): Promise<void> {
  let config: DemoConfig;
  try {
    config = parseDemoConfig(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof DemoUsageError)) throw error;
    process.stderr.write(`jobs-demo: ${error.message}\nRun with --help for the options.\n`);
    process.exitCode = 2;
    return;
  }
  if (config.help) {
    process.stdout.write(`${DEMO_HELP}\n`);
    return;
  }
  let embedded: RedisServer | undefined;
  let redisUrl = config.redisUrl;
  if (redisUrl === undefined) {
    embedded = await startRedisServer({ name: 'demo' });
    redisUrl = embedded.url;
  }
  const app = new DemoApp({ redisUrl, queue: config.queueName, visibilityMs: config.visibilityMs });
  await app.stats(); // fail now, not on the first click, if Redis cannot be used
  const server = createDemoServer(app, { hostNames: [config.host, '127.0.0.1', 'localhost', '::1'] });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = config.host.includes(':') ? `[${config.host}]` : config.host;
  process.stdout.write(`Redis job-queue demo server listening on http://${shownHost}:${port}\n`);
  process.stdout.write(`Using Redis at ${embedded ? `${describeRedis(redisUrl)} (a private redis-server, pid ${embedded.pid})` : describeRedis(redisUrl)}\n`);
  process.stdout.write(`Visibility timeout: ${config.visibilityMs} ms\n`);

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) process.exit(130);
    stopping = true;
    process.stdout.write(`${signal}: stopping the workers and the server\n`);
    server.close();
    await app.close();
    if (embedded) {
      await embedded.stop();
      process.stdout.write('stopped the private redis-server\n');
    }
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`jobs-demo: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
