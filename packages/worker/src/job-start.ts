import { PermanentError, TimeoutError, type ClaimedJob, type Kinds, type Logger } from '@jobs/core';
import type { Clock } from './clock.ts';
import { Execution, type HandlerOutcome } from './execution.ts';
import type { HandlerMap, JobContext } from './handler-map.ts';
import { HandlerContext } from './job-context.ts';
import type { Lane } from './lane.ts';
import type { OutcomeReporter } from './outcome-reporter.ts';
import type { Slots } from './slots.ts';
import type { WorkerMetrics } from './worker-metrics.ts';
import type { WorkerTracing } from './worker-tracing.ts';

type AnyHandler = (payload: unknown, context: JobContext) => unknown;

/**
 * Starts a claimed job in its slot: checks its payload against its kind, keeps its lease, arms
 * the kind's timeout and calls its handler; the {@link OutcomeReporter} hears how it ended.
 */
export class JobStarter<P> {
  readonly #kinds: Kinds<P>;
  readonly #handlers: Readonly<Record<string, AnyHandler>>;
  readonly #slots: Slots;
  readonly #reporter: OutcomeReporter;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #reportError: (error: unknown, message: string) => void;
  readonly #metrics: WorkerMetrics | undefined;
  readonly #tracing: WorkerTracing | undefined;

  constructor(kinds: Kinds<P>, handlers: HandlerMap<P>, slots: Slots, reporter: OutcomeReporter, clock: Clock, log: Logger, reportError: (error: unknown, message: string) => void, metrics: WorkerMetrics | undefined, tracing: WorkerTracing | undefined) {
    this.#kinds = kinds;
    this.#handlers = handlers as unknown as Readonly<Record<string, AnyHandler>>;
    this.#slots = slots;
    this.#reporter = reporter;
    this.#clock = clock;
    this.#log = log;
    this.#reportError = reportError;
    this.#metrics = metrics;
    this.#tracing = tracing;
  }

  /** Runs `job`, claimed from `lane`, in a slot that is its own until its outcome is recorded. */
  start(job: ClaimedJob, lane: Lane): void {
    const execution = new Execution(job, lane, this.#onOutcome);
    this.#slots.running.set(job.token, execution);
    try {
      this.#execute(execution);
    } catch (error) {
      this.#reportError(error, 'job bookkeeping failed');
      this.#reporter.finish(execution);
    }
  }

  /** Checks the job's payload and calls its handler; {@link #onOutcome} hears how it ended. */
  #execute(execution: Execution): void {
    const { job, lane } = execution;
    const queue = lane.queue;
    // The claim parsed the payload once; only a payload that is not JSON is parsed again, for the reason.
    const kinds = this.#kinds;
    const decoded = job.payload === undefined ? kinds.decode(job.rawPayload, job.fields.kind) : kinds.decodeParsed(job.payload, job.fields.kind);
    if (!decoded.ok) {
      // Unknown kind, payload not JSON, or not valid for its schema (a non-validating client
      // wrote it): retrying cannot help.
      this.#reporter.report(execution, { ok: false, error: new PermanentError(decoded.reason) }, 0);
      return;
    }
    const kind = decoded.kind;
    const kindOptions = kinds.options(kind);
    if (this.#metrics !== undefined) this.#metrics.started(job, kind);
    execution.leaseMs = job.leaseExpiresAtMs - job.claimedAtMs > 0 ? job.leaseExpiresAtMs - job.claimedAtMs : queue.options.visibilityMs;
    lane.leases.add(job, execution.leaseMs, execution.onLeaseLost);
    const context = new HandlerContext(execution, kind, job.maxAttempts ?? kindOptions.maxAttempts ?? queue.options.maxAttempts, this.#log);
    if (kindOptions.timeoutMs !== undefined) {
      const timeoutMs = kindOptions.timeoutMs;
      execution.timer = this.#clock.setTimeout(() => execution.abort(new TimeoutError(`job ${job.id} (${kind})`, timeoutMs)), timeoutMs);
    }
    execution.startedAt = this.#clock.now();
    const handler = this.#handlers[kind] as AnyHandler;
    if (this.#tracing !== undefined) this.#tracing.run(execution, kind, handler, decoded.payload, context);
    else execution.run(handler, decoded.payload, context);
  }

  /** A handler ended (or its attempt was aborted): stop its timer and lease, then report. */
  readonly #onOutcome = (execution: Execution, outcome: HandlerOutcome): void => {
    this.#clock.clearTimeout(execution.timer);
    // A timed-out attempt stops renewing before it is reported.
    execution.lane.leases.remove(execution.job);
    if (execution.span !== undefined) (this.#tracing as WorkerTracing).end(execution, outcome);
    this.#reporter.report(execution, outcome, this.#clock.now() - execution.startedAt);
  };
}
