#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { startRedisServer, type RedisServer } from '@jobs/dev-redis';
import { runExample } from './run-example.ts';

const HELP = `Usage: jobs-demo [--jobs N] [--workers N] [--queue NAME] [--redis-url URL]

Runs the @jobs example: a producer enqueues a batch of email, webhook, thumbnail and invoice
jobs; a worker runs them (--workers at a time), retries, dead-letters, and reclaims a crashed
recipe client's claim; then it prints the queue's stats.

With no --redis-url and no REDIS_URL, starts a private redis-server on a free loopback port
(data under .redis-data/, removed on exit) and stops it when done.`;

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        jobs: { type: 'string', default: '40' },
        workers: { type: 'string', default: '4' },
        queue: { type: 'string', default: 'demo' },
        'redis-url': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const jobs = Number(values.jobs);
  const workers = Number(values.workers);
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 10_000 || !Number.isInteger(workers) || workers < 1 || workers > 64) {
    process.stderr.write('--jobs must be 1 to 10000 and --workers 1 to 64\n');
    return 2;
  }

  let server: RedisServer | undefined;
  let redisUrl = values['redis-url'] ?? process.env.REDIS_URL;
  if (!redisUrl) {
    server = await startRedisServer({ name: 'demo' });
    process.stdout.write(`started a private redis-server on 127.0.0.1:${server.port} (pid ${server.pid})\n`);
    redisUrl = server.url;
  }
  const stop = async (): Promise<void> => {
    if (!server) return;
    const running = server;
    server = undefined;
    await running.stop();
    process.stdout.write('stopped the private redis-server\n');
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void stop().finally(() => process.exit(130));
    });
  }
  try {
    await runExample({ redis: redisUrl, queue: values.queue, jobs, workers });
    return 0;
  } finally {
    await stop();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
