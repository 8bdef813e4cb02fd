import { PermanentError, TimeoutError } from '@jobs/core';
import type { Clock } from './clock.ts';
import type { Execution } from './execution.ts';
import type { BatchContext, BatchJob, BatchResults } from './handler-map.ts';

/** One job of a batch: its execution, the job as the handler sees it, and how its own outcome is told. */
export interface BatchMember {
  readonly execution: Execution;
  readonly job: BatchJob<unknown>;
  /** Completes the job with `result`. */
  readonly resolve: (result: unknown) => void;
  /** Fails the job's attempt with `error`. */
  readonly reject: (error: unknown) => void;
}

/** A batch kind's handler, untyped. */
export type AnyBatchHandler = (jobs: readonly BatchJob<unknown>[], batch: BatchContext) => BatchResults | Promise<BatchResults>;

/**
 * Calls a kind's batch handler with `members`' jobs and settles each job on its own: a result
 * per job (an `Error` fails only its job), nothing (all complete), or a throw (all fail). The
 * kind's `timeoutMs` counts from the call and aborts every job of the batch; the batch's signal
 * aborts once every one of its jobs has been aborted (a timeout, a shutdown past its grace, or
 * each lease lost). Each job's lease is kept by its lane while the batch runs, as for one job.
 */
export function runBatch(members: readonly BatchMember[], handler: AnyBatchHandler, kind: string, timeoutMs: number | undefined, clock: Clock): void {
  const count = members.length;
  const batchAbort = new AbortController();
  let running = count;
  const now = clock.now();
  for (const { execution } of members) {
    // Its run time is the batch's, not the wait to be gathered.
    execution.startedAt = now;
    const signal = execution.signal;
    signal.addEventListener(
      'abort',
      () => {
        running -= 1;
        if (running === 0) batchAbort.abort(signal.reason);
      },
      { once: true },
    );
  }
  const timer =
    timeoutMs === undefined
      ? undefined
      : clock.setTimeout(() => {
          const error = new TimeoutError(`a batch of ${count} ${kind} jobs`, timeoutMs);
          for (const { execution } of members) execution.abort(error);
        }, timeoutMs);
  const failAll = (error: unknown): void => {
    clock.clearTimeout(timer);
    for (const member of members) member.reject(error);
  };
  let returned: BatchResults | Promise<BatchResults>;
  try {
    returned = handler(
      members.map((member) => member.job),
      { kind, signal: batchAbort.signal },
    );
  } catch (error) {
    failAll(error);
    return;
  }
  Promise.resolve(returned).then((results) => {
    clock.clearTimeout(timer);
    settleEach(members, results, kind);
  }, failAll);
}

/** Tells each member its entry of `results` (see {@link BatchResults}); results of another shape fail them all for good. */
function settleEach(members: readonly BatchMember[], results: unknown, kind: string): void {
  if (results === undefined) {
    for (const member of members) member.resolve(undefined);
    return;
  }
  if (!Array.isArray(results) || results.length !== members.length) {
    // A handler that answers in another shape would answer so on every attempt.
    const got = Array.isArray(results) ? `${results.length} results` : typeof results;
    const error = new PermanentError(`the batch handler of kind "${kind}" returned ${got} for ${members.length} jobs: expected nothing, or one result (or Error) per job, in the jobs' order`);
    for (const member of members) member.reject(error);
    return;
  }
  members.forEach((member, index) => {
    const entry: unknown = results[index];
    if (entry instanceof Error) member.reject(entry);
    else member.resolve(entry);
  });
}
