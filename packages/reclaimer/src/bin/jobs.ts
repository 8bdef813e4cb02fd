#!/usr/bin/env node
import { closeClient, connectRedis, describeRedis, isJobsError, toJobsError } from '@jobs/core';
import { ADMIN_HELP, parseAdminArgs, type AdminInvocation } from '../admin/admin-args.ts';
import { followEvents } from '../admin/event-lines.ts';
import { aclResult, openNamed, runAdminCommand } from '../admin/run-admin.ts';
import { UsageError } from '../usage-error.ts';

async function main(): Promise<number> {
  let invocation: AdminInvocation;
  try {
    invocation = parseAdminArgs(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`jobs: ${error.message}\nRun jobs --help for the commands.\n`);
    return 2;
  }
  if (invocation.command.name === 'help') {
    process.stdout.write(`${ADMIN_HELP}\n`);
    return 0;
  }
  if (invocation.command.name === 'acl') {
    // Needs no Redis: it only writes the line to run there.
    const result = aclResult(invocation.command.user, invocation.command.queues, invocation.command.partitions);
    process.stdout.write(`${invocation.json ? JSON.stringify(result.json, null, 2) : result.text}\n`);
    return 0;
  }
  if (invocation.command.name === 'events' && invocation.command.follow) return follow(invocation, invocation.command);
  // Fail fast: an admin command should say Redis is away, not wait for it. (A cluster client
  // holds commands while it reaches no node, retries or not: the command timeout bounds that.)
  const { client } = connectRedis(invocation.redisUrl, 'jobs:admin', {
    connectTimeout: 3_000,
    commandTimeout: 5_000,
    maxRetriesPerRequest: 0,
    retryStrategy: (times) => (times > 2 ? null : 200),
  });
  try {
    const result = await runAdminCommand(invocation.command, client);
    const out = invocation.json ? JSON.stringify(result.json, null, 2) : result.text;
    (result.code === 0 ? process.stdout : process.stderr).write(`${out}\n`);
    return result.code;
  } catch (error) {
    const mapped = toJobsError(error);
    const where = describeRedis(invocation.redisUrl);
    const message = isJobsError(mapped, 'JOBS_REDIS_UNAVAILABLE')
      ? `cannot reach Redis at ${where}: ${(mapped.cause as Error | undefined)?.message ?? mapped.message}`
      : `${invocation.command.name} failed: ${mapped instanceof Error ? mapped.message : String(mapped)}`;
    process.stderr.write(`jobs: ${message}\n`);
    return 1;
  } finally {
    await closeClient(client);
  }
}

/** `jobs events --follow`: prints the log as it grows until SIGINT or SIGTERM; rides out a lost connection. */
async function follow(invocation: AdminInvocation, command: Extract<AdminInvocation['command'], { name: 'events' }>): Promise<number> {
  const { client } = connectRedis(invocation.redisUrl, 'jobs:admin:events');
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  try {
    const queue = await openNamed(client, command.queue);
    await followEvents(queue, { from: command.from, partition: command.partition, json: invocation.json }, (line) => process.stdout.write(`${line}\n`), stop.signal);
    await queue.close();
    return 0;
  } catch (error) {
    const mapped = toJobsError(error);
    process.stderr.write(`jobs: events failed: ${mapped instanceof Error ? mapped.message : String(mapped)}\n`);
    return 1;
  } finally {
    await closeClient(client);
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`jobs: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
