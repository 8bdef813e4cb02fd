#!/usr/bin/env node
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { describeRedis, queueKeys, type RedisClient } from '@jobs/core';
import { closeClient, connectRedis } from '@jobs/core/internal';
import { parseAdminCommandLine, type AdminCommand } from '../admin/admin-program.ts';
import { exitQuietlyOnClosedPipe } from '../command-line.ts';
import { closestNames } from '../admin/closest-names.ts';
import { describeFailure, watchConnectionErrors } from '../admin/connection-failure.ts';
import { exportFailed } from '../admin/export-failed.ts';
import { followEvents } from '../admin/event-lines.ts';
import { partitionQueues } from '../admin/partition-queues.ts';
import { aclResult, openNamed, runAdminCommand, type AdminResult } from '../admin/run-admin.ts';
import { recordCliAction, trailFor } from '../admin/run-audit.ts';
import { discoverQueues, queueExists } from '../discover-queues.ts';

const COMMAND_TIMEOUT_MS = 5_000;

/** Says that `queue` is not in Redis, and which queues are (the closest to the name first). */
async function noSuchQueue(client: RedisClient, queue: string, where: string): Promise<string> {
  const found = await discoverQueues(client).catch(() => undefined);
  if (found === undefined) return `no queue "${queue}" in Redis at ${where}`;
  // A partitioned queue is named by its partitions' common name.
  const names = [...new Set(found.map((name) => name.replace(/:p\d+$/, '')))];
  if (names.length === 0) return `no queue "${queue}" in Redis at ${where}: it has no queues at all`;
  const { ordered, suggestion } = closestNames(queue, names);
  const more = ordered.length > 20 ? ` and ${ordered.length - 20} more (jobsctl queues lists them)` : '';
  return `no queue "${queue}" in Redis at ${where}${suggestion ? `; did you mean "${suggestion}"?` : ''}\nits queues: ${ordered.slice(0, 20).join(', ')}${more}`;
}

/** `export-failed`: streams the dead letters to --out (a new file, never overwritten) or stdout. */
async function runExport(command: Extract<AdminCommand, { name: 'export-failed' }>, client: RedisClient): Promise<AdminResult> {
  let file: WriteStream | undefined;
  if (command.out !== undefined) {
    file = createWriteStream(command.out, { flags: 'wx' });
    try {
      await once(file, 'open');
    } catch (error) {
      const why = (error as NodeJS.ErrnoException).code === 'EEXIST' ? 'the file exists, and an export never overwrites one' : (error as Error).message;
      return { code: 1, text: `cannot write ${command.out}: ${why}`, json: { error: 'cannot_write', out: command.out } };
    }
  }
  const count = await exportFailed(command.queue, partitionQueues(await openNamed(client, command.queue)), file ?? process.stdout);
  if (file) {
    const done = once(file, 'finish');
    file.end();
    await done;
  }
  // The count goes to stderr: stdout may be the export itself.
  const text = `exported ${count} failed job(s) of ${command.queue}${command.out === undefined ? '' : ` to ${command.out}`}`;
  process.stderr.write(`${text}\n`);
  return { code: 0, text: '', json: null };
}

async function main(): Promise<number> {
  exitQuietlyOnClosedPipe();
  const line = await parseAdminCommandLine(process.argv.slice(2), process.env);
  if ('exitCode' in line) return line.exitCode;
  const { command, redisUrl, json } = line.run;
  const print = (result: AdminResult): number => {
    const out = json ? JSON.stringify(result.json, null, 2) : result.text;
    if (out !== '' && result.json !== null) (result.code === 0 ? process.stdout : process.stderr).write(`${out}\n`);
    return result.code;
  };
  // Needs no Redis: it only writes the line to run there.
  if (command.name === 'acl') return print(aclResult(command.user, command.queues, command.partitions, command.operator));
  if (command.name === 'events' && command.follow) return follow(command, redisUrl, json);
  // Fail fast: an admin command should say Redis is away, not wait for it. (A cluster client
  // holds commands while it reaches no node, retries or not: the command timeout bounds that.)
  const { client } = connectRedis(redisUrl, 'jobsctl', {
    connectTimeout: 3_000,
    commandTimeout: COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: (times) => (times > 2 ? null : 200),
  });
  const connectionError = watchConnectionErrors(client);
  const where = describeRedis(redisUrl);
  try {
    // A purged queue keeps its audit trail: `audit` reads it still.
    const trailOnly = command.name === 'audit' && (await client.exists(queueKeys(command.queue).audit)) === 1;
    if ('queue' in command && command.queue !== undefined && !trailOnly && !(await queueExists(client, command.queue))) {
      process.stderr.write(`jobsctl: ${await noSuchQueue(client, command.queue, where)}\n`);
      return 1;
    }
    if (command.name === 'export-failed') return print(await runExport(command, client));
    // The acting commands go in their queue's audit trail, as the dashboard's actions do.
    const trail = await trailFor(command, client);
    const result = await runAdminCommand(command, client);
    if (trail) await recordCliAction(command, result, trail);
    return print(result);
  } catch (error) {
    process.stderr.write(`jobsctl: ${describeFailure(error, where, connectionError(), COMMAND_TIMEOUT_MS)}\n`);
    return 1;
  } finally {
    await closeClient(client);
  }
}

/** `events --follow`: prints the log as it grows until SIGINT or SIGTERM; rides out a lost connection. */
async function follow(command: Extract<AdminCommand, { name: 'events' }>, redisUrl: string, json: boolean): Promise<number> {
  const { client } = connectRedis(redisUrl, 'jobsctl:events');
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  const where = describeRedis(redisUrl);
  try {
    if (!(await queueExists(client, command.queue))) {
      process.stderr.write(`jobsctl: ${await noSuchQueue(client, command.queue, where)}\n`);
      return 1;
    }
    const queue = await openNamed(client, command.queue);
    await followEvents(queue, { from: command.from, partition: command.partition, json }, (line) => process.stdout.write(`${line}\n`), stop.signal);
    await queue.close();
    return 0;
  } catch (error) {
    process.stderr.write(`jobsctl: ${describeFailure(error, where, undefined, COMMAND_TIMEOUT_MS)}\n`);
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
    process.stderr.write(`jobsctl: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
