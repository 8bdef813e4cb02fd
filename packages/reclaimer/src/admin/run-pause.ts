import { defineKinds, Queue, type Kinds, type ListState, type RedisClient } from '@jobs/core';
import { recordedPartitions } from '@jobs/core/internal';
import { closestNames } from './closest-names.ts';
import type { AdminResult } from './run-admin.ts';
import { partitionQueues } from './partition-queues.ts';
import { scheduleAdmin } from './schedules-admin.ts';

/** A pause or resume of a queue (or one kind of it), as `jobsctl pause` and `resume` take it. */
export interface PauseCommand {
  readonly name: 'pause' | 'resume';
  readonly queue: string;
  readonly kind: string | undefined;
  /** The queue's kinds from `--kinds`, to check `kind` against instead of the jobs in Redis. */
  readonly kinds: Kinds<unknown> | undefined;
  /** Who pauses (`--by`, default `user@host`: run-audit.ts's `cliLabel`), recorded with the pause. */
  readonly by: string | undefined;
}

/** The lists whose newest and oldest jobs say which kinds a queue carries. */
const SAMPLED: readonly ListState[] = ['pending', 'delayed', 'processing', 'failed', 'completed'];
/** Jobs read per list and partition when looking for a kind. */
const SAMPLE = 200;

/**
 * The queue by its name (every partition of a partitioned queue), opened with `kind` as its one
 * kind: pausing a kind needs only its name, and an admin has no schemas.
 */
async function openWithKind(client: RedisClient, queue: string, kind: string | undefined): Promise<Queue<unknown>> {
  const kinds = defineKinds(kind === undefined ? {} : { [kind]: { schema: { type: 'object' } } });
  return new Queue({ redis: client, queue, kinds, partitions: await recordedPartitions(client, queue) }) as Queue<unknown>;
}

/**
 * Whether queue `queue` knows kind `kind`, with the kinds found: a paused kind, a schedule's kind,
 * or the kind of a job among the oldest of each list of each partition. Redis keeps no list of a
 * queue's kinds (they live in the code), so this reads a sample, and stops at the first match.
 */
async function findKind(client: RedisClient, queue: Queue<unknown>, kind: string, pausedKinds: readonly string[]): Promise<{ found: boolean; seen: string[] }> {
  const seen = new Set<string>(pausedKinds);
  for (const schedule of await scheduleAdmin.list(client, queue.name)) seen.add(schedule.kind);
  for (const partition of partitionQueues(queue)) {
    for (const state of SAMPLED) {
      if (seen.has(kind)) return { found: true, seen: [...seen] };
      for (const job of await partition.list(state, { limit: SAMPLE })) if (job.kind) seen.add(job.kind);
    }
  }
  return { found: seen.has(kind), seen: [...seen] };
}

/** Says that `queue` has no kind `kind`, with the kinds it does have (the closest first). */
function unknownKind(queue: string, kind: string, known: readonly string[], from: string): AdminResult {
  const { ordered, suggestion } = closestNames(kind, known);
  const listed = ordered.length > 0 ? `\n${from}: ${ordered.join(', ')}` : `\n${from}: none`;
  return {
    code: 1,
    text: `queue "${queue}" has no kind "${kind}"${suggestion ? `; did you mean "${suggestion}"?` : ''}${listed}`,
    json: { error: 'unknown_kind', queue, kind, kinds: ordered },
  };
}

/** Jobs of `kind` parked (set aside while it was paused) in every partition. */
async function parkedOf(queue: Queue<unknown>, kind: string): Promise<number> {
  let parked = 0;
  for (const partition of queue.partitions) parked += await partition.client.llen(partition.keys.parked(kind));
  return parked;
}

/**
 * `jobsctl pause` and `resume`: the whole queue, or one kind, in every partition. Pausing a kind
 * needs a kind the queue knows (from `--kinds`, else found in Redis); resuming one, a kind that is
 * paused or still has parked jobs. Pausing what is paused, or resuming what runs, changes nothing
 * and says so (exit code 0).
 */
export async function runPauseCommand(command: PauseCommand, client: RedisClient): Promise<AdminResult> {
  const { queue: name, kind } = command;
  const queue = await openWithKind(client, name, kind);
  const before = await Promise.all(partitionQueues(queue).map((partition) => partition.stats()));
  const pausedKinds = [...new Set(before.flatMap((stats) => stats.pausedKinds))].sort();
  const what = kind === undefined ? `queue ${name}` : `kind ${kind} of queue ${name}`;
  const wasPaused = kind === undefined ? before.every((stats) => stats.paused) : before.every((stats) => stats.pausedKinds.includes(kind));
  const wasRunning = kind === undefined ? before.every((stats) => !stats.paused) : !pausedKinds.includes(kind);
  if (command.name === 'pause') {
    if (kind !== undefined && !wasPaused) {
      if (command.kinds) {
        if (!command.kinds.has(kind)) return unknownKind(name, kind, command.kinds.names, 'its kinds (--kinds)');
      } else {
        const { found, seen } = await findKind(client, queue, kind, pausedKinds);
        if (!found) return unknownKind(name, kind, seen, 'kinds seen in its jobs and schedules (--kinds FILE checks against your code instead)');
      }
    }
    if (!wasPaused) await queue.pause({ ...(kind !== undefined && { kind }), ...(command.by !== undefined && { by: command.by }) });
    const text = wasPaused
      ? `${what} was already paused`
      : `paused ${what}: workers start no new job of it; running jobs finish and enqueues go on`;
    return { code: 0, text, json: { queue: name, kind: kind ?? null, paused: true, changed: !wasPaused } };
  }
  const parked = kind === undefined ? 0 : await parkedOf(queue, kind);
  if (kind !== undefined && wasRunning && parked === 0) {
    return { code: 1, text: `kind ${kind} of queue ${name} is not paused\nits paused kinds: ${pausedKinds.length > 0 ? pausedKinds.join(', ') : 'none'}`, json: { error: 'not_paused', queue: name, kind, pausedKinds } };
  }
  if (!wasRunning || parked > 0) await queue.resume(kind === undefined ? {} : { kind });
  const back = kind === undefined || parked === 0 ? '' : `: ${parked} parked job(s) back in line`;
  const text = wasRunning && parked === 0 ? `${what} was not paused` : `resumed ${what}${back}`;
  return { code: 0, text, json: { queue: name, kind: kind ?? null, paused: false, changed: !wasRunning || parked > 0, ...(kind !== undefined && { unparked: parked }) } };
}
