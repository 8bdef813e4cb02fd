import type { Queue } from '@jobs/reclaimer';
import type { LedgerEntry } from './ledger.ts';

/** What became of the acknowledged jobs of a failover run. */
export interface FailoverFindings {
  /** Enqueues the producers saw acknowledged (the call returned an id). */
  readonly acknowledged: number;
  /** Acknowledged jobs whose hash says completed, or whose completion the ledger recorded. */
  readonly completed: number;
  /**
   * Of those, the jobs whose record the failover took away (no completed hash) after a worker had
   * run them and seen the completion acknowledged: the work was done, Redis forgot it.
   */
  readonly completedOnlyInLedger: number;
  /** Acknowledged jobs dead-lettered with a reason. */
  readonly failed: number;
  /** Acknowledged jobs still pending, processing or delayed after the drain, with their status. */
  readonly leftover: readonly string[];
  /**
   * Acknowledged jobs that are gone: neither completed (hash or ledger), nor failed, nor
   * waiting. Each line says what Redis still has of it and how often it ran.
   */
  readonly lost: readonly string[];
  /** Handler runs in the ledger, all jobs. */
  readonly executions: number;
  /** Runs beyond the first of a job that no recorded retry asked for (allowed: at-least-once). */
  readonly duplicateExecutions: number;
}

const WAITING = new Set(['pending', 'processing', 'delayed']);

/**
 * Checks every acknowledged job against Redis after the drain and against the workers' ledger.
 * A rolled-back claim or completion shows up as a job run again (a duplicate execution); a
 * rolled-back enqueue that no worker ran shows up as lost.
 */
export async function analyzeFailover(queue: Queue<unknown>, acknowledged: ReadonlyMap<string, string>, ledger: readonly LedgerEntry[]): Promise<FailoverFindings> {
  const starts = new Map<string, number>();
  const retries = new Map<string, number>();
  const reported = new Map<string, Set<string>>();
  for (const entry of ledger) {
    if (entry.e === 'start') {
      starts.set(entry.id, (starts.get(entry.id) ?? 0) + 1);
      continue;
    }
    if (entry.e !== 'report') continue;
    if (entry.outcome === 'retrying') retries.set(entry.id, (retries.get(entry.id) ?? 0) + 1);
    reported.set(entry.id, (reported.get(entry.id) ?? new Set()).add(entry.outcome));
  }

  let completed = 0;
  let completedOnlyInLedger = 0;
  let failed = 0;
  const leftover: string[] = [];
  const lost: string[] = [];
  for (const [key, id] of acknowledged) {
    const job = await queue.getJob(id);
    if (job?.status === 'completed') completed += 1;
    else if (job?.status === 'failed' && job.lastError) failed += 1;
    else if (job !== null && WAITING.has(job.status)) leftover.push(`${key} (${id}): ${job.status}`);
    else if (reported.get(id)?.has('completed')) {
      completed += 1;
      completedOnlyInLedger += 1;
    } else if (reported.get(id)?.has('failed')) failed += 1;
    else lost.push(`${key} (${id}): ${job === null ? 'no hash' : job.status}, ran ${starts.get(id) ?? 0} time(s)`);
  }

  let executions = 0;
  let duplicateExecutions = 0;
  for (const [id, runs] of starts) {
    executions += runs;
    duplicateExecutions += Math.max(0, runs - 1 - (retries.get(id) ?? 0));
  }
  return { acknowledged: acknowledged.size, completed, completedOnlyInLedger, failed, leftover, lost, executions, duplicateExecutions };
}
