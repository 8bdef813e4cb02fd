import { InvalidArgumentError } from '../errors.ts';
import { tellWorkersScript } from '../generated/tell-workers.ts';
import { assertWorkerId } from '../keys.ts';
import { assertOptionKeys } from '../option-keys.ts';
import { assertWholeNumber } from '../whole-number.ts';
import type { QueueContext } from './queue-context.ts';

/** What {@link Queue.quietWorkers} and {@link Queue.resumeWorkers} take. */
export interface TellWorkersOptions {
  /** The one worker to tell (its `workerId`). Default: every worker of the queue alive now. */
  readonly workerId?: string;
}

/** What {@link Queue.scaleWorkers} takes. */
export interface ScaleWorkersOptions extends TellWorkersOptions {
  /** Jobs each worker told runs at once from now on: a whole number from 1 to 10,000. */
  readonly concurrency: number;
}

/** Which workers an order reached (stored in their registry hashes and published to them). */
export interface WorkersTold {
  /** Their ids, in id order; empty when no worker (or not the one named) is alive. */
  readonly told: readonly string[];
}

/** The one worker named, or '' for every live worker; throws on a bad id. */
function target(options: TellWorkersOptions): string {
  if (options.workerId === undefined) return '';
  assertWorkerId(options.workerId);
  return options.workerId;
}

/** See {@link Queue.quietWorkers} and {@link Queue.resumeWorkers}: in the registry of `ctx` (partition 0's). */
export async function quietOrResume<P>(ctx: QueueContext<P>, op: 'quiet' | 'resume', options: TellWorkersOptions = {}): Promise<WorkersTold> {
  assertOptionKeys<TellWorkersOptions>('options', options, { workerId: true });
  return tell(ctx, op, '', target(options));
}

/** See {@link Queue.scaleWorkers}: in the registry of `ctx` (partition 0's). */
export async function scaleWorkers<P>(ctx: QueueContext<P>, options: ScaleWorkersOptions): Promise<WorkersTold> {
  if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'expected { concurrency, workerId? }');
  assertOptionKeys<ScaleWorkersOptions>('options', options, { concurrency: true, workerId: true });
  const concurrency = assertWholeNumber('concurrency', options.concurrency, 1, 10_000);
  return tell(ctx, 'scale', String(concurrency), target(options));
}

async function tell<P>(ctx: QueueContext<P>, op: 'quiet' | 'resume' | 'scale', concurrency: string, worker: string): Promise<WorkersTold> {
  const argv = tellWorkersScript.argv({ workers: ctx.keys.workers }, { prefix: ctx.keys.prefix, controlChannel: ctx.keys.control, op, concurrency, worker });
  const [told, ...rest] = await ctx.scripts.run(tellWorkersScript, argv);
  if (Number(told) === 0) {
    const [id, largest] = rest;
    throw new InvalidArgumentError('concurrency', `worker ${String(id)} runs batches of up to ${String(largest)} jobs, each taking that many of its slots: give it a concurrency of ${String(largest)} at least`);
  }
  return { told: rest.map(String).sort() };
}
