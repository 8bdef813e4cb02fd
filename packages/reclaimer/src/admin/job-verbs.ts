import { assertPriority, type RedisClient } from '@jobs/core';
import type { Command } from 'commander';
import { UsageError } from '../usage-error.ts';
import { queueOption, type GlobalFlags } from './admin-options.ts';
import type { AdminResult } from './run-admin.ts';

/** `jobsctl promote`, `priority` and `remove`: an operator's verbs of one job. */
export type JobVerbCommand =
  | { readonly name: 'promote'; readonly queue: string; readonly id: string }
  | { readonly name: 'priority'; readonly queue: string; readonly id: string; readonly priority: number }
  | { readonly name: 'remove'; readonly queue: string; readonly id: string };

/** What the program's commands share (see admin-program.ts). */
export interface JobVerbHelpers {
  take(command: JobVerbCommand, globals: GlobalFlags): void;
  needQueue(command: string, flag: string | undefined): string;
  jobId(id: string): string;
  globals(command: Command): GlobalFlags;
}

/** Adds `promote`, `priority` and `remove` to `program`. */
export function addJobVerbCommands(program: Command, { take, needQueue, jobId, globals }: JobVerbHelpers): void {
  program
    .command('promote')
    .description('start a delayed job now (it still waits for a paused kind, a limit or its group)')
    .argument('<id>', 'the job id')
    .addOption(queueOption())
    .action((id: string, flags: { queue?: string }, command: Command) => take({ name: 'promote', queue: needQueue('promote', flags.queue), id: jobId(id) }, globals(command)));

  program
    .command('priority')
    .description('give a job that has not started a new priority (higher starts first; -1000 to 1000)')
    .argument('<id>', 'the job id')
    .argument('<priority>', 'the new priority')
    .addOption(queueOption())
    .action((id: string, raw: string, flags: { queue?: string }, command: Command) => {
      if (!/^-?\d+$/.test(raw)) throw new UsageError(`priority must be a whole number from -1000 to 1000, got ${JSON.stringify(raw)}`);
      let priority: number;
      try {
        priority = assertPriority('priority', Number(raw));
      } catch {
        throw new UsageError(`priority must be a whole number from -1000 to 1000, got ${raw}`);
      }
      take({ name: 'priority', queue: needQueue('priority', flags.queue), id: jobId(id), priority }, globals(command));
    });

  program
    .command('remove')
    .description('delete a job that is not running (its hash, its place in every list, its idempotency key)')
    .argument('<id>', 'the job id')
    .addOption(queueOption())
    .action((id: string, flags: { queue?: string }, command: Command) => take({ name: 'remove', queue: needQueue('remove', flags.queue), id: jobId(id) }, globals(command)));
}

/** Runs a {@link JobVerbCommand} on the queue `open` gives (every partition, routed by the id). */
export async function runJobVerb(command: JobVerbCommand, client: RedisClient, open: (client: RedisClient, queue: string) => Promise<{ promote(id: string): Promise<{ promoted: boolean; status?: string }>; changePriority(id: string, priority: number): Promise<{ changed: boolean; status?: string }>; remove(id: string): Promise<{ removed: boolean; status?: string }> }>): Promise<AdminResult> {
  const queue = await open(client, command.queue);
  const { id } = command;
  const refused = (verb: string, status: string | undefined, json: Record<string, unknown>): AdminResult => ({
    code: 1,
    text: `cannot ${verb} ${id}: ${status === 'not_found' ? 'there is no such job' : `it is ${status}`}`,
    json: { id, ...json, status },
  });
  switch (command.name) {
    case 'promote': {
      const outcome = await queue.promote(id);
      return outcome.promoted ? { code: 0, text: `promoted ${id}: it waits in line now`, json: { id, promoted: true } } : refused('promote', outcome.status, { promoted: false });
    }
    case 'priority': {
      const outcome = await queue.changePriority(id, command.priority);
      return outcome.changed ? { code: 0, text: `${id} has priority ${command.priority} now`, json: { id, priority: command.priority, changed: true } } : refused('change the priority of', outcome.status, { changed: false });
    }
    case 'remove': {
      const outcome = await queue.remove(id);
      return outcome.removed ? { code: 0, text: `removed ${id}`, json: { id, removed: true } } : refused('remove', outcome.status, { removed: false });
    }
  }
}
