import type { JobRecord, QueueStats } from '@jobs/reclaimer';
import type { LedgerEntry } from './ledger.ts';

/** What the checks read: a queue's jobs and its counters (summed over partitions, if any). */
export interface QueueReader {
  getJob(id: string): Promise<JobRecord | null>;
  stats(): Promise<QueueStats>;
}

/** What the checks found. Every list should be empty. */
export interface ChaosFindings {
  /** Acknowledged enqueues. */
  readonly jobs: number;
  readonly completed: number;
  /** In the failed list with a reason. */
  readonly failed: number;
  /** Acknowledged jobs neither completed nor failed with a reason. */
  readonly lost: readonly string[];
  /** Jobs still waiting (pending, prioritized, parked, in a group's turn), processing or delayed after the drain. */
  readonly leftover: number;
  /** Executions run again because an earlier one crashed or lost its lease (allowed: at-least-once). */
  readonly duplicateExecutions: number;
  /** Two executions of one job that overlapped while both still held a valid claim. */
  readonly fencingViolations: readonly string[];
  /** Redis counters that disagree with the jobs and the ledger. */
  readonly counterMismatches: readonly string[];
}

interface Execution {
  start: number;
  /** When the handler returned or threw. */
  endedAt: number | undefined;
  reportedAt: number | undefined;
  outcome: string | undefined;
}

/** Checks every acknowledged job, the counters and the ledger. */
export async function analyze(queue: QueueReader, acknowledged: ReadonlyMap<string, string>, ledger: readonly LedgerEntry[]): Promise<ChaosFindings> {
  const lost: string[] = [];
  const mismatches: string[] = [];
  let completed = 0;
  let failed = 0;
  const completedResults = new Map<string, { pid: number; attempt: number }>();
  for (const [key, id] of acknowledged) {
    const job = await queue.getJob(id);
    if (job?.status === 'completed') {
      completed += 1;
      completedResults.set(id, job.result as { pid: number; attempt: number });
    } else if (job?.status === 'failed' && job.lastError) {
      failed += 1;
    } else {
      lost.push(`${key} (${id}): ${job ? job.status : 'no hash'}`);
    }
  }
  const stats = await queue.stats();
  const leftover = stats.pendingDepth + stats.prioritizedDepth + stats.parkedDepth + stats.groupsWaiting + stats.processingDepth + stats.delayedDepth;
  if (stats.completedTotal !== completed) mismatches.push(`completed_total ${stats.completedTotal} but ${completed} acknowledged jobs are completed`);
  if (stats.failedTotal !== failed) mismatches.push(`failed_total ${stats.failedTotal} but ${failed} acknowledged jobs are failed`);
  if (stats.enqueuedTotal !== acknowledged.size) mismatches.push(`enqueued_total ${stats.enqueuedTotal} but ${acknowledged.size} enqueues were acknowledged`);

  // Executions by job, from the ledger.
  const executions = new Map<string, Map<string, Execution>>();
  for (const entry of ledger) {
    const byAttempt = executions.get(entry.id) ?? new Map<string, Execution>();
    executions.set(entry.id, byAttempt);
    const key = `${entry.pid}:${entry.attempt}`;
    const execution = byAttempt.get(key) ?? { start: Number.NaN, endedAt: undefined, reportedAt: undefined, outcome: undefined };
    if (entry.e === 'start') execution.start = entry.t;
    else if (entry.e === 'end') execution.endedAt = entry.t;
    else {
      execution.reportedAt = entry.t;
      execution.outcome = entry.outcome;
    }
    byAttempt.set(key, execution);
  }
  // The result of every completed job names an execution the ledger saw start.
  for (const [id, result] of completedResults) {
    const execution = executions.get(id)?.get(`${result.pid}:${result.attempt}`);
    if (!execution || Number.isNaN(execution.start)) mismatches.push(`job ${id} completed by pid ${result.pid} attempt ${result.attempt}, which the ledger never saw start`);
  }

  let duplicateExecutions = 0;
  const fencingViolations: string[] = [];
  for (const [id, byAttempt] of executions) {
    const runs = [...byAttempt.values()].filter((run) => !Number.isNaN(run.start)).sort((a, b) => a.start - b.start);
    runs.forEach((_run, index) => {
      if (index > 0 && runs[index - 1]?.outcome !== 'retrying') duplicateExecutions += 1;
    });
    // Executions whose outcome Redis accepted held a valid claim from their start until Redis
    // took their outcome, which was after their handler ended: no other valid execution may
    // start before that end. (The worker hears back later still, so the time it logs its
    // report cannot be the bound: a retried job may be claimed again in between.)
    const valid = runs.filter((run) => run.outcome !== undefined && run.outcome !== 'lost' && run.reportedAt !== undefined);
    for (let i = 1; i < valid.length; i += 1) {
      const previous = valid[i - 1] as Execution;
      const current = valid[i] as Execution;
      const heldUntil = previous.endedAt ?? (previous.reportedAt as number);
      if (current.start < heldUntil) fencingViolations.push(`job ${id}: two valid executions overlapped`);
    }
  }
  return { jobs: acknowledged.size, completed, failed, lost, leftover, duplicateExecutions, fencingViolations, counterMismatches: mismatches };
}
