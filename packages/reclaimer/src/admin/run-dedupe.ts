import { defineKinds, Queue, type RedisClient } from '@jobs/core';
import { recordedPartitions } from '@jobs/core/internal';
import { renderPairs } from '../table.ts';
import type { AdminResult } from './run-admin.ts';

/** `jobsctl dedupe <key> --kind <kind> -q <queue>`: the job that owns a dedupe or unique key. */
export interface DedupeCommand {
  readonly name: 'dedupe';
  readonly queue: string;
  readonly kind: string;
  readonly key: string;
}

/** Says which job owns the key, its status, and whether an enqueue with the key would be absorbed now. */
export async function runDedupeCommand(command: DedupeCommand, client: RedisClient): Promise<AdminResult> {
  const partitions = await recordedPartitions(client, command.queue);
  const queue = new Queue({ redis: client, queue: command.queue, kinds: defineKinds({}), partitions });
  const owner = await queue.dedupeOwner(command.kind as never, command.key);
  if (owner === null) return { code: 0, text: `no job holds key ${JSON.stringify(command.key)} of kind ${command.kind}: the next enqueue with it makes a job`, json: { holding: false } };
  const pairs: [string, string][] = [
    ['job', owner.jobId],
    ['status', owner.status ?? '(its hash is gone)'],
    ['states', owner.states.join(', ') || '-'],
    ['period', owner.period ? 'yes: the key holds for its own time' : 'no'],
    ['holding', owner.holding ? 'yes: an enqueue with this key is absorbed into the job' : 'no: the next enqueue with it makes a job and takes the key'],
  ];
  return { code: 0, text: renderPairs(pairs), json: owner };
}
