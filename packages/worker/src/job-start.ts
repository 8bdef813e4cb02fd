import { PermanentError, TimeoutError, type ClaimedJob, type Kinds } from '@jobs/core';
import { BatchGatherer, BatchGatherers } from './batch-gatherer.ts';
import { runBatch, type AnyBatchHandler, type BatchMember } from './batch-run.ts';
import { Execution, type HandlerOutcome } from './execution.ts';
import { isolatedEntries } from './handler-check.ts';
import type { HandlerMap, JobContext } from './handler-map.ts';
import type { KindHandOff } from './kind-hand-off.ts';
import { openIsolatedPools, type IsolatedPools } from './isolate/isolated-pools.ts';
import { IsolatedPool } from './isolate/pool.ts';
import { BatchJobContext, HandlerContext } from './job-context.ts';
import type { Lane } from './lane.ts';
import type { OutcomeReporter } from './outcome-reporter.ts';
import type { Slots } from './slots.ts';
import type { WorkerContext } from './worker-context.ts';
import type { WorkerTracing } from './worker-tracing.ts';

type AnyHandler = (payload: unknown, context: JobContext) => unknown;
/** A batch kind's entry of the handler map (checked by the worker: see handler-check.ts). */
interface AnyBatchEntry {
  readonly handler: AnyBatchHandler;
  readonly batch: { readonly size: number; readonly minSize?: number; readonly maxWaitMs: number };
}

/**
 * Starts a claimed job in its slot: checks its payload against its kind, keeps its lease, arms
 * the kind's timeout and calls its handler; the {@link OutcomeReporter} hears how it ended. A
 * job of a batch kind is gathered instead (its lease kept meanwhile), and runs with its batch.
 */
export class JobStarter<P> {
  readonly #kinds: Kinds<P>;
  readonly #handlers: Readonly<Record<string, AnyHandler | AnyBatchEntry | IsolatedPool>>;
  /** The batch kinds' gatherers; none when no kind runs in batches. */
  readonly #batches: BatchGatherers<BatchMember> | undefined;
  readonly #slots: Slots;
  readonly #reporter: OutcomeReporter;
  readonly #context: WorkerContext;
  /** The isolated kinds' pools; none when no kind is isolated. */
  readonly #isolated: IsolatedPools | undefined;

  /** Hands back the jobs of kinds this worker does not know; undefined: they fail at once. */
  readonly #handOff: KindHandOff | undefined;

  constructor(context: WorkerContext, kinds: Kinds<P>, handlers: HandlerMap<P>, slots: Slots, reporter: OutcomeReporter, handOff?: KindHandOff) {
    this.#context = context;
    this.#handOff = handOff;
    this.#kinds = kinds;
    // An isolated kind's entry is its pool.
    this.#isolated = openIsolatedPools(isolatedEntries(kinds, handlers, slots.concurrency), slots.concurrency, context);
    const own = handlers as unknown as Readonly<Record<string, AnyHandler | AnyBatchEntry>>;
    this.#handlers = this.#isolated === undefined ? own : { ...own, ...this.#isolated.pools };
    this.#slots = slots;
    this.#reporter = reporter;
    this.#batches = this.#gatherers(() => slots.concurrency);
  }

  /** A gatherer per batch kind, which run what they hold once the worker stops claiming. */
  #gatherers(concurrency: () => number): BatchGatherers<BatchMember> | undefined {
    let gatherers: BatchGatherers<BatchMember> | undefined;
    const { clock, stop } = this.#context;
    for (const kind of this.#kinds.names) {
      const entry = this.#handlers[kind];
      if (entry === undefined || typeof entry === 'function' || entry instanceof IsolatedPool) continue;
      gatherers ??= new BatchGatherers(concurrency);
      const { size, minSize = 1, maxWaitMs } = entry.batch;
      const timeoutMs = this.#kinds.options(kind).timeoutMs;
      const run = (members: BatchMember[]): void => runBatch(members, entry.handler, kind, timeoutMs, clock);
      gatherers.set(kind, new BatchGatherer<BatchMember>({ size, minSize, maxWaitMs }, clock, gatherers, run, (member) => member.execution.aborted));
    }
    if (gatherers !== undefined) {
      const all = gatherers;
      stop.addEventListener('abort', () => all.stop(), { once: true });
    }
    return gatherers;
  }

  /** Ends the isolated kinds' children, once the worker has handed back or finished their jobs. */
  close(): Promise<void> {
    return this.#isolated?.close() ?? Promise.resolve();
  }

  /** Runs `job`, claimed from `lane`, in a slot that is its own until its outcome is recorded. */
  start(job: ClaimedJob, lane: Lane): void {
    const execution = new Execution(job, lane, this.#onOutcome);
    this.#slots.running.set(job.token, execution);
    try {
      this.#execute(execution);
    } catch (error) {
      this.#context.reportError(error, 'job bookkeeping failed');
      this.#reporter.finish(execution);
    }
  }

  /** Checks the job's payload and calls its handler; {@link #onOutcome} hears how it ended. */
  #execute(execution: Execution): void {
    const { job, lane } = execution;
    const queue = lane.queue;
    // The claim parsed the payload once; only a payload that is not JSON is parsed again, for the reason.
    const kinds = this.#kinds;
    const decoded = job.payload === undefined ? kinds.decode(job.rawPayload, job.kind) : kinds.decodeParsed(job.payload, job.kind);
    if (!decoded.ok) {
      // A kind this worker does not know, in a rolling deploy: left for a worker that does.
      if (this.#handOff !== undefined && decoded.kind !== undefined && !kinds.has(decoded.kind)) {
        void this.#handOff.handOff(execution, decoded.kind, () => this.#reporter.finish(execution));
        return;
      }
      // Unknown kind, payload not JSON, or not valid for its schema (a non-validating client
      // wrote it): retrying cannot help.
      this.#reporter.report(execution, { ok: false, error: new PermanentError(decoded.reason) }, 0);
      return;
    }
    const kind = decoded.kind;
    const kindOptions = kinds.options(kind);
    const { clock, metrics, tracing } = this.#context;
    if (metrics !== undefined) metrics.started(job, kind);
    execution.leaseMs = job.leaseExpiresAtMs - job.claimedAtMs > 0 ? job.leaseExpiresAtMs - job.claimedAtMs : queue.options.visibilityMs;
    lane.leases.add(job, execution.leaseMs, execution.onLeaseLost);
    const maxAttempts = job.maxAttempts ?? kindOptions.maxAttempts ?? queue.options.maxAttempts;
    let handler = this.#handlers[kind] as AnyHandler | AnyBatchEntry | IsolatedPool;
    let context: HandlerContext;
    if (typeof handler === 'function') {
      context = new HandlerContext(execution, kind, maxAttempts, this.#context.log);
      if (kindOptions.timeoutMs !== undefined) {
        const timeoutMs = kindOptions.timeoutMs;
        execution.timer = clock.setTimeout(() => execution.abort(new TimeoutError(`job ${job.id} (${kind})`, timeoutMs)), timeoutMs);
      }
    } else if (handler instanceof IsolatedPool) {
      // Runs in a child of the kind's pool, which arms the kind's timeout once the child starts it.
      context = new HandlerContext(execution, kind, maxAttempts, this.#context.log);
      handler = handler.handler(kindOptions.timeoutMs, (reason) => execution.abort(reason));
    } else {
      // The job's "handler" waits for its batch, whose run arms the kind's timeout.
      context = new BatchJobContext(execution, kind, maxAttempts, this.#context.log, decoded.payload);
      handler = this.#gather(execution, kind);
    }
    execution.startedAt = clock.now();
    if (tracing !== undefined) tracing.run(execution, kind, handler, decoded.payload, context);
    else execution.run(handler, decoded.payload, context);
  }

  /** What runs a batch kind's job: it joins its kind's batch and settles with its own entry of the batch's results. */
  #gather(execution: Execution, kind: string): AnyHandler {
    const gatherer = (this.#batches as BatchGatherers<BatchMember>).get(kind) as BatchGatherer<BatchMember>;
    return (_payload, job) => new Promise((resolve, reject) => gatherer.add({ execution, job: job as BatchJobContext, resolve, reject }));
  }

  /** A handler ended (or its attempt was aborted): stop its timer and lease, then report. */
  readonly #onOutcome = (execution: Execution, outcome: HandlerOutcome): void => {
    const { clock, tracing } = this.#context;
    clock.clearTimeout(execution.timer);
    // A timed-out attempt stops renewing before it is reported.
    execution.lane.leases.remove(execution.job);
    if (execution.span !== undefined) (tracing as WorkerTracing).end(execution, outcome);
    this.#reporter.report(execution, outcome, clock.now() - execution.startedAt);
  };
}
