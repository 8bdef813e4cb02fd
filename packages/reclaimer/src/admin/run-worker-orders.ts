import { defineKinds, isJobsError, Queue, type RedisClient, type WorkersTold } from '@jobs/core';
import { recordedPartitions } from '@jobs/core/internal';
import type { Command } from 'commander';
import { parseWholeNumber } from '../usage-error.ts';
import { queueOption, type GlobalFlags } from './admin-options.ts';
import type { AdminResult } from './run-admin.ts';

/** `jobsctl quiet`, `resume-workers` and `scale`: orders to a queue's live workers (or one of them). */
export interface WorkerOrderCommand {
  readonly name: 'quiet' | 'resume-workers' | 'scale';
  readonly queue: string;
  /** The one worker to tell (`--worker`), else every worker alive now. */
  readonly worker: string | undefined;
  /** `scale`'s `--concurrency`. */
  readonly concurrency: number | undefined;
}

/** What the program's commands share (see admin-program.ts). */
export interface WorkerOrderHelpers {
  take(command: WorkerOrderCommand, globals: GlobalFlags): void;
  needQueue(command: string, flag: string | undefined): string;
  globals(command: Command): GlobalFlags;
}

const ORDERS_HELP = `
Without --worker, every worker alive in the queue's registry now is told (jobsctl workers lists
them); workers started later are not, so a new deploy's workers claim. Each order is stored in the
worker's registry hash and published on the queue's control channel in one step: a worker that
misses the message obeys at its next heartbeat. A worker started with heartbeatIntervalMs: 0 is
not in the registry and cannot be told. jobsctl workers shows QUIET and the concurrency each
worker has now (from its heartbeat, sent at once when it obeys).
Exit codes: 0 told (the ids are printed), 1 no live worker (or not the one named), 2 wrong arguments.`;

/** Adds `quiet`, `resume-workers` and `scale` to `program`. */
export function addWorkerOrderCommands(program: Command, { take, needQueue, globals }: WorkerOrderHelpers): void {
  const workerFlag = '--worker <id>';
  const workerHelp = 'tell only this worker (its id, as jobsctl workers shows it)';
  program
    .command('quiet')
    .description("stop a queue's workers claiming new jobs (the jobs they run finish; they go on heartbeating)")
    .addOption(queueOption())
    .option(workerFlag, workerHelp)
    .addHelpText('after', ORDERS_HELP)
    .action((flags: { queue?: string; worker?: string }, command: Command) => take({ name: 'quiet', queue: needQueue('quiet', flags.queue), worker: flags.worker, concurrency: undefined }, globals(command)));

  program
    .command('resume-workers')
    .description('let quiet workers of a queue claim again (jobsctl resume undoes a queue pause instead)')
    .addOption(queueOption())
    .option(workerFlag, workerHelp)
    .addHelpText('after', ORDERS_HELP)
    .action((flags: { queue?: string; worker?: string }, command: Command) =>
      take({ name: 'resume-workers', queue: needQueue('resume-workers', flags.queue), worker: flags.worker, concurrency: undefined }, globals(command)),
    );

  program
    .command('scale')
    .description("change how many jobs a queue's workers run at once (fewer: running jobs finish, none is aborted)")
    .addOption(queueOption())
    .requiredOption('--concurrency <n>', 'jobs each worker told runs at once, 1-10000 (no less than its largest batch size)')
    .option(workerFlag, workerHelp)
    .addHelpText('after', ORDERS_HELP)
    .action((flags: { queue?: string; worker?: string; concurrency: string }, command: Command) => {
      const queue = needQueue('scale', flags.queue);
      const concurrency = parseWholeNumber('--concurrency', flags.concurrency, 1, 1, 10_000);
      take({ name: 'scale', queue, worker: flags.worker, concurrency }, globals(command));
    });
}

const DONE: Record<WorkerOrderCommand['name'], string> = {
  quiet: 'claims no new jobs (running jobs finish)',
  'resume-workers': 'claims again',
  scale: 'runs up to N jobs at once',
};

/** Sends a {@link WorkerOrderCommand} through the registry of the queue (partition 0's for a partitioned one). */
export async function runWorkerOrderCommand(command: WorkerOrderCommand, client: RedisClient): Promise<AdminResult> {
  const partitions = await recordedPartitions(client, command.queue);
  const queue = new Queue({ redis: client, queue: command.queue, kinds: defineKinds({}), partitions });
  const options = command.worker === undefined ? {} : { workerId: command.worker };
  let result: WorkersTold;
  try {
    if (command.name === 'quiet') result = await queue.quietWorkers(options);
    else if (command.name === 'resume-workers') result = await queue.resumeWorkers(options);
    else result = await queue.scaleWorkers({ ...options, concurrency: command.concurrency as number });
  } catch (error) {
    if (!isJobsError(error, 'JOBS_INVALID_ARGUMENT')) throw error;
    const flag = error.field === 'workerId' ? '--worker' : `--${error.field ?? 'concurrency'}`;
    return { code: 2, text: `jobsctl: ${command.name}: ${flag}: ${error.message}`, json: { error: error.code, field: error.field ?? null, message: error.message } };
  }
  const json = { queue: command.queue, op: command.name, told: result.told, ...(command.concurrency !== undefined && { concurrency: command.concurrency }) };
  if (result.told.length === 0) {
    const whom = command.worker === undefined ? 'no live workers' : `no live worker ${command.worker}`;
    return { code: 1, text: `${whom} in ${command.queue} (jobsctl workers lists them; a worker with heartbeats off cannot be told)`, json: { ...json, error: 'no_workers' } };
  }
  const what = DONE[command.name].replace('N', String(command.concurrency));
  const ids = result.told.map((id) => id.replace(/\p{Cc}/gu, '?'));
  return { code: 0, text: `told ${ids.length} worker(s) of ${command.queue}: each ${what}\n${ids.join('\n')}`, json };
}
