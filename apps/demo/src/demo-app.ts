import { createProducer, isJobsError, type JobRecord, type Producer, type PayloadTypesOf } from '@jobs/producer';
import { createReclaimer, Queue, type QueueStats, type Reclaimer } from '@jobs/reclaimer';
import { HttpError } from './http-error.ts';
import { DEMO_KINDS, demoKinds, recipePayload } from './kinds.ts';
import { booleanField, numberField, stringField } from './request-body.ts';
import { WorkerSupervisor } from './supervisor.ts';
import type { WorkConfig } from './work-config.ts';

type DemoPayloads = PayloadTypesOf<typeof demoKinds>;

/** Where the demo's queue lives. */
export interface DemoAppOptions {
  redisUrl: string;
  queue: string;
  visibilityMs: number;
  /** Override the worker entry (tests). */
  workerScript?: string;
}

/** A job as the recipe demo's `/jobs` lists it, plus its kind. */
export interface JobSummary {
  id: string;
  status: string;
  kind: string | null;
  attempts: number;
  payload: unknown;
  result: unknown;
  last_error: string | null;
  /** Higher starts first; 0 is the default. */
  priority: number;
}

/** The page's priority choices and the job priorities they stand for (higher starts first). */
export const PRIORITIES = { low: -10, normal: 0, high: 10 } as const;

/** A priority choice of the page. */
export type PriorityName = keyof typeof PRIORITIES;

/** The `priority` field: low, normal (the default) or high; 400 otherwise. */
function priorityField(body: Record<string, unknown>): number {
  const name = stringField(body, 'priority', 'normal', 16);
  if (!Object.hasOwn(PRIORITIES, name)) throw new HttpError(400, `priority must be one of ${Object.keys(PRIORITIES).join(', ')}`, { field: 'priority', code: 'JOBS_INVALID_ARGUMENT' });
  return PRIORITIES[name as PriorityName];
}

const LIST_CAP = 100;
const HISTORY_CAP = 10;
const JOB_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

function summary(job: JobRecord): JobSummary {
  return {
    id: job.id,
    status: job.status,
    kind: job.kind ?? null,
    attempts: job.attempts,
    payload: job.payload ?? {},
    result: job.result ?? null,
    last_error: job.lastError ?? null,
    priority: job.priority,
  };
}

function validationBody(error: unknown): HttpError {
  if (isJobsError(error, 'JOBS_VALIDATION')) return new HttpError(400, error.message, { code: error.code, field: error.field, issues: error.issues });
  if (isJobsError(error)) return new HttpError(400, error.message, { code: error.code, field: error.field });
  throw error;
}

/**
 * The demo's state and actions behind its HTTP API: a producer, the admin view of the queue,
 * the worker supervisor and an optional automatic reclaimer.
 */
export class DemoApp {
  readonly options: DemoAppOptions;
  readonly supervisor: WorkerSupervisor;
  readonly #producer: Producer<DemoPayloads>;
  readonly #admin: Queue<unknown>;
  #reclaimer: Reclaimer | undefined;

  constructor(options: DemoAppOptions) {
    this.options = options;
    this.#producer = createProducer({ redis: options.redisUrl, queue: options.queue, kinds: demoKinds });
    this.#admin = new Queue({ redis: options.redisUrl, queue: options.queue, kinds: demoKinds, visibilityMs: options.visibilityMs }) as Queue<unknown>;
    this.supervisor = new WorkerSupervisor({ redisUrl: options.redisUrl, queue: options.queue, visibilityMs: options.visibilityMs, ...(options.workerScript !== undefined && { script: options.workerScript }) });
  }

  get autoReclaim(): boolean {
    return this.#reclaimer !== undefined;
  }

  /** The recipe demo's `/stats`, plus ours. */
  async stats(): Promise<Record<string, unknown>> {
    const stats: QueueStats = await this.#admin.stats();
    const config = this.supervisor.config;
    return {
      enqueued_total: stats.enqueuedTotal,
      completed_total: stats.completedTotal,
      failed_total: stats.failedTotal,
      reclaimed_total: stats.reclaimedTotal,
      pending_depth: stats.pendingDepth,
      processing_depth: stats.processingDepth,
      completed_depth: stats.completedDepth,
      failed_depth: stats.failedDepth,
      visibility_ms: this.options.visibilityMs,
      workers_running: this.supervisor.running,
      worker_processed_total: stats.completedTotal,
      work_latency_ms: config.workLatencyMs,
      fail_rate: config.failRate,
      hang_rate: config.hangRate,
      delayed_depth: stats.delayedDepth,
      retried_total: stats.retriedTotal,
      cancelled_total: stats.cancelledTotal,
      released_total: stats.releasedTotal,
      redriven_total: stats.redrivenTotal,
      oldest_pending_age_ms: stats.oldestPendingAgeMs,
      paused: stats.paused,
      paused_kinds: stats.pausedKinds,
      prioritized_depth: stats.prioritizedDepth,
      parked_depth: stats.parkedDepth,
      worker_pool_size: this.supervisor.size,
      worker_crashes_total: this.supervisor.crashes,
      auto_reclaim: this.autoReclaim,
      queue_name: this.options.queue,
      server_time_ms: stats.nowMs,
    };
  }

  /** The recipe demo's `/jobs` (pending oldest first; capped lists), plus `delayed`. */
  async jobs(): Promise<Record<string, JobSummary[]>> {
    const [pending, processing, delayed, completed, failed] = await Promise.all([
      this.#admin.list('pending', { limit: LIST_CAP }),
      this.#admin.list('processing', { limit: LIST_CAP }),
      this.#admin.list('delayed', { limit: LIST_CAP }),
      this.#admin.list('completed', { limit: HISTORY_CAP }),
      this.#admin.list('failed', { limit: HISTORY_CAP }),
    ]);
    return { pending: pending.map(summary), processing: processing.map(summary), delayed: delayed.map(summary), completed: completed.map(summary), failed: failed.map(summary) };
  }

  /** `POST /enqueue`: kind, recipient and count, as in the recipe demo, and a priority (low, normal, high). */
  async enqueue(body: Record<string, unknown>): Promise<{ enqueued: string[] }> {
    const kind = stringField(body, 'kind', 'email', 50);
    if (!demoKinds.has(kind)) throw new HttpError(400, `unknown kind ${JSON.stringify(kind)}: use one of ${DEMO_KINDS.join(', ')}`, { field: 'kind', code: 'JOBS_UNKNOWN_KIND' });
    const recipient = stringField(body, 'recipient', 'user@example.com', 254);
    const count = numberField(body, 'count', 1, 1, 50);
    const priority = priorityField(body);
    // Normal leaves the option out, so that a kind's own default priority would apply.
    const options = priority === 0 ? {} : { options: { priority } };
    try {
      const results = await this.#producer.enqueueMany(Array.from({ length: count }, (_, i) => ({ ...recipePayload(kind, recipient, i + 1), ...options })));
      return { enqueued: results.map((result) => result.id) };
    } catch (error) {
      throw validationBody(error);
    }
  }

  /** `POST /enqueue/custom`: any payload for a kind, validated against its schema. */
  async enqueueCustom(body: Record<string, unknown>): Promise<{ id: string }> {
    const kind = stringField(body, 'kind', '', 50);
    if (!demoKinds.has(kind)) throw new HttpError(400, `unknown kind ${JSON.stringify(kind)}: use one of ${DEMO_KINDS.join(', ')}`, { field: 'kind', code: 'JOBS_UNKNOWN_KIND' });
    let payload = body.payload;
    if (typeof payload === 'string') {
      try {
        payload = JSON.parse(payload);
      } catch (error) {
        throw new HttpError(400, `payload is not JSON: ${(error as Error).message}`, { field: 'payload', code: 'JOBS_VALIDATION', issues: [{ pointer: '', keyword: 'json', message: (error as Error).message }] });
      }
    }
    const delayMs = numberField(body, 'delay_ms', 0, 0, 3_600_000);
    const priority = priorityField(body);
    try {
      const id = await this.#producer.enqueue(kind, payload as never, { ...(delayMs > 0 && { delayMs }), ...(priority !== 0 && { priority }) });
      return { id };
    } catch (error) {
      throw validationBody(error);
    }
  }

  #workConfig(body: Record<string, unknown>, current: WorkConfig): WorkConfig {
    return {
      workLatencyMs: numberField(body, 'work_latency_ms', current.workLatencyMs, 0, 60_000),
      failRate: numberField(body, 'fail_rate', current.failRate, 0, 1, false),
      hangRate: numberField(body, 'hang_rate', current.hangRate, 0, 1, false),
    };
  }

  /** `POST /queue/pause`: workers start no job of the queue until resumed (running ones finish); enqueues go on. */
  async pause(): Promise<void> {
    await this.#producer.pause();
  }

  /** `POST /queue/resume`: the waiting workers start the queue's jobs again. */
  async resume(): Promise<void> {
    await this.#producer.resume();
  }

  /** `POST /workers/start`: size (0-8), work_latency_ms, fail_rate, hang_rate. */
  async startWorkers(body: Record<string, unknown>): Promise<void> {
    const size = numberField(body, 'size', 2, 0, 8);
    await this.supervisor.start(size, this.#workConfig(body, { workLatencyMs: 400, failRate: 0, hangRate: 0 }));
  }

  /** `POST /workers/configure`: changes the running workers' behaviour. */
  configureWorkers(body: Record<string, unknown>): void {
    this.supervisor.configure(this.#workConfig(body, this.supervisor.config));
  }

  /** `POST /workers/stop`. */
  async stopWorkers(): Promise<void> {
    await this.supervisor.stop();
  }

  /** `POST /reclaim`: one sweep; the ids it returned to pending (and dead-lettered). */
  async reclaim(): Promise<{ reclaimed: string[]; dead_lettered: string[] }> {
    const reclaimed: string[] = [];
    const deadLettered: string[] = [];
    for (let call = 0; call < 20; call += 1) {
      const result = await this.#admin.reclaimStuck();
      reclaimed.push(...result.reclaimed);
      deadLettered.push(...result.deadLettered);
      if (!result.more) break;
    }
    return { reclaimed, dead_lettered: deadLettered };
  }

  /** `POST /reclaim/auto`: sweeps every second while enabled. */
  async setAutoReclaim(body: Record<string, unknown>): Promise<void> {
    const enabled = booleanField(body, 'enabled');
    if (enabled && !this.#reclaimer) {
      this.#reclaimer = createReclaimer({ redis: this.options.redisUrl, queues: [this.options.queue], intervalMs: 1_000, visibilityMs: this.options.visibilityMs });
      this.#reclaimer.start();
    } else if (!enabled && this.#reclaimer) {
      const reclaimer = this.#reclaimer;
      this.#reclaimer = undefined;
      await reclaimer.stop();
    }
  }

  /** `GET /jobs/:id`: every field of a job's hash. */
  async job(id: string): Promise<{ job: JobSummary & { fields: Record<string, string> } }> {
    if (!JOB_ID.test(id)) throw new HttpError(400, 'not a job id', { field: 'id' });
    const job = await this.#producer.getJob(id);
    if (!job) throw new HttpError(404, `no job ${id} (it may have expired)`, { field: 'id', code: 'JOBS_NOT_FOUND' });
    return { job: { ...summary(job), fields: { ...job.fields } } };
  }

  /** `POST /jobs/:id/retry`: a failed job back to pending. */
  async retry(id: string): Promise<{ retried: string }> {
    if (!JOB_ID.test(id)) throw new HttpError(400, 'not a job id', { field: 'id' });
    const [outcome] = await this.#admin.retry([id]);
    if (outcome !== true) throw new HttpError(outcome === 'not_found' ? 404 : 409, `job ${id} is ${String(outcome)}, not failed`, { field: 'id' });
    return { retried: id };
  }

  /** `POST /reset`: stops the workers and deletes the queue. */
  async reset(): Promise<void> {
    await this.supervisor.stop();
    await this.#admin.purge();
  }

  /** Stops everything it started and closes its connections. */
  async close(): Promise<void> {
    await this.supervisor.stop();
    await this.#reclaimer?.stop();
    this.#reclaimer = undefined;
    await Promise.all([this.#producer.close(), this.#admin.close()]);
  }
}
