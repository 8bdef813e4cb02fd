import type { EventEmitter } from 'node:events';
import { JOBS_ERROR_CODES, type JobsError, type Logger } from '@jobs/core';
import { toJobsError, type ControlOrder, type WorkerOrder } from '@jobs/core/internal';
import { ClaimLoop } from './claim-loop.ts';
import { withClaimSpans } from './claim-spans.ts';
import type { Clock } from './clock.ts';
import { CompletionBatcher } from './completion-batcher.ts';
import type { Execution } from './execution.ts';
import type { HandlerMap } from './handler-map.ts';
import { Heartbeats, type HeartbeatSink } from './heartbeats.ts';
import { HistoryCounts, type HistorySink } from './history-counts.ts';
import { JobStarter } from './job-start.ts';
import { KindHandOff } from './kind-hand-off.ts';
import { Lane } from './lane.ts';
import type { QueueGroup } from './lane-queue.ts';
import { LeaseKeeper } from './lease-keeper.ts';
import { OutcomeReporter } from './outcome-reporter.ts';
import { ReclaimSweeper } from './reclaim-sweeper.ts';
import { shutDown } from './shutdown.ts';
import { Slots } from './slots.ts';
import type { WorkerContext } from './worker-context.ts';
import type { WorkerEventMap } from './worker-events.ts';
import type { WorkerMetrics } from './worker-metrics.ts';
import type { WorkerTracing } from './worker-tracing.ts';

/** Hears when delayed jobs come due (see DueNotices). */
export interface DueJobListener {
  /** Settles once it listens (or that failed, which it reports). */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/** What a {@link WorkerScheduler} runs on: its queue, handlers and clock, and where it reports. */
export interface SchedulerOptions<P> {
  readonly group: QueueGroup<P>;
  readonly handlers: HandlerMap<P>;
  readonly concurrency: number;
  /**
   * How long a job of a kind this worker does not know may wait for a live worker that knows it
   * (ms); 0 or absent: such a job fails at once.
   */
  readonly unknownKindGraceMs?: number;
  /** Starts quiet: claims nothing until {@link WorkerScheduler.resume}. Default false. */
  readonly quiet?: boolean | undefined;
  /** Hears the orders to workers (quiet, resume, scale) heard on the control channel, for any worker: the caller picks its own. */
  onWorkerOrder?(order: WorkerOrder): void;
  /** Sweep for expired leases this often; 0: never. */
  readonly reclaimIntervalMs: number;
  /** The longest an idle worker waits for work before it claims again (see WorkerOptions.idleWaitMs). */
  readonly idleWaitMs: number;
  readonly log: Logger;
  /** Where `completed`, `retrying`, `failed`, `lost`, `error` and `closed` go (the worker). */
  readonly events: EventEmitter<WorkerEventMap>;
  readonly clock: Clock;
  /** The worker's Prometheus metrics, when it was given a registry. */
  readonly metrics?: WorkerMetrics | undefined;
  /** A span per attempt, when tracing is on. */
  readonly tracing?: WorkerTracing | undefined;
  /** Heartbeats into the queue's worker registry, every `intervalMs`; none when undefined. */
  readonly heartbeat?: { readonly sink: HeartbeatSink; readonly intervalMs: number } | undefined;
  /** Counts for the queue's metrics history, flushed every `intervalMs`; none when undefined. */
  readonly history?: { readonly sink: HistorySink; readonly intervalMs: number; readonly fields: number } | undefined;
  /**
   * Starts listening for delayed jobs that come due. `hasRoom`: whether a slot is free (a full
   * worker leaves promotions to its next claim); `onError` hears what goes wrong.
   */
  listenForDueJobs(hasRoom: () => boolean, onError: (error: unknown, message: string) => void): DueJobListener;
  /** Starts listening for the queue's control orders (see `ControlOrder`); none when undefined. */
  listenForOrders?(onOrder: (order: ControlOrder) => void, onError: (error: unknown, message: string) => void): DueJobListener;
}

/**
 * A worker's machinery, wired: its {@link Slots}, one {@link Lane} per partition, the
 * {@link ClaimLoop}, the {@link JobStarter} and {@link OutcomeReporter}, the
 * {@link ReclaimSweeper} and the shutdown. It starts at once. It needs no Redis of its own: the
 * queue and the clock come in, so unit tests run it on a fake queue and fake time.
 */
export class WorkerScheduler<P> {
  readonly #stop = new AbortController();
  readonly #options: SchedulerOptions<P>;
  readonly #context: WorkerContext;
  readonly #slots: Slots;
  readonly #claims: ClaimLoop;
  readonly #lanes: readonly Lane[];
  readonly #notices: DueJobListener;
  readonly #orders: DueJobListener | undefined;
  readonly #sweeper: ReclaimSweeper;
  readonly #heartbeats: Heartbeats | undefined;
  readonly #history: HistoryCounts | undefined;
  readonly #starter: JobStarter<P>;
  #closing: Promise<void> | undefined;

  constructor(options: SchedulerOptions<P>) {
    this.#options = options;
    const { group, clock, concurrency } = options;
    const reportErrorTo = (error: unknown, message: string): void => reportError(options.log, options.events, error, message);
    const history = options.history;
    this.#history = history === undefined ? undefined : new HistoryCounts({ ...history, clock, onError: (error) => reportErrorTo(error, 'metrics history flush failed; its counts go with the next') });
    const context: WorkerContext = {
      clock,
      log: options.log,
      events: options.events,
      stop: this.#stop.signal,
      metrics: options.metrics,
      history: this.#history,
      tracing: options.tracing,
      reportError: reportErrorTo,
    };
    this.#context = context;
    const slots = new Slots(concurrency, (job, lane) => starter.start(job, lane));
    this.#slots = slots;
    const reporter = new OutcomeReporter(context, slots);
    const graceMs = options.unknownKindGraceMs ?? 0;
    const liveWorkers = group.liveWorkers?.bind(group) ?? (async () => []);
    const handOff = graceMs > 0 ? new KindHandOff({ graceMs, known: group.kinds.names, liveWorkers }, context) : undefined;
    const starter = new JobStarter(context, group.kinds, options.handlers, slots, reporter, handOff);
    this.#starter = starter;
    const claims = new ClaimLoop(slots, clock, context.stop, context.reportError, options.idleWaitMs);
    this.#claims = claims;
    this.#lanes = group.partitions.map((partition) => {
      const queue = options.tracing === undefined ? partition : withClaimSpans(partition, options.tracing);
      const leases = new LeaseKeeper(queue, (error) => context.reportError(error, 'lease renewal failed'), clock, options.metrics);
      return new Lane(queue, leases, options.idleWaitMs / 2, (lane) => new CompletionBatcher<Execution>(queue, claims.batchClaimsOf(lane), reporter.completions, () => Math.ceil(slots.concurrency / 2)));
    });
    // Room: a free slot, counting those a waiting claim has reserved (the promotion wakes that claim).
    this.#notices = options.listenForDueJobs(() => slots.free() + slots.reserved > 0, context.reportError);
    this.#orders = options.listenForOrders?.((order) => this.#obey(order), context.reportError);
    if (options.quiet === true) void claims.quiet();
    claims.start(this.#lanes, () => group.ensureLayout(), this.#notices.ready);
    this.#sweeper = new ReclaimSweeper(context, group.partitions, options.reclaimIntervalMs);
    const heartbeat = options.heartbeat;
    this.#heartbeats = heartbeat === undefined ? undefined : new Heartbeats({
      sink: heartbeat.sink,
      clock,
      intervalMs: heartbeat.intervalMs,
      // Read from the slots at each heartbeat: the job path keeps nothing for it.
      runningIds: () => Array.from(slots.running.values(), (execution) => execution.job.id),
      onError: (error) => context.reportError(error, 'heartbeat failed'),
    });
  }

  /** Carries out an order heard on the control channel. */
  #obey(order: ControlOrder): void {
    if (order.op !== 'cancel') {
      this.#options.onWorkerOrder?.(order);
      return;
    }
    // A job cancelled while it runs stops; one claimed but not started yet never starts.
    const execution = this.#slots.running.get(order.token);
    if (execution !== undefined) execution.onCancelled();
    else if (this.#slots.dropWaiting(order.token) !== undefined) this.#context.log.info({ jobId: order.id }, 'a job claimed but not started was cancelled; it will not run');
  }

  /**
   * Stops claiming (see ClaimLoop.quiet); resolves once no claim is in flight, and the registry
   * is told at once then. Running jobs go on; leases and heartbeats too.
   */
  async quiet(): Promise<void> {
    await this.#claims.quiet();
    this.#heartbeats?.beatSoon();
  }

  /** Claims again after {@link quiet}; the registry is told at once. */
  resume(): void {
    if (!this.#claims.isQuiet) return;
    this.#claims.resume();
    this.#heartbeats?.beatSoon();
  }

  /** Quiet with no claim in flight: what the registry says as `quiet`. */
  get settledQuiet(): boolean {
    return this.#claims.settledQuiet;
  }

  /**
   * Runs `concurrency` jobs at once from now on (checked by the caller): more claim at once (a
   * blocking claim in flight is ended, to claim again for more); fewer let running jobs finish
   * and claim only below the new number. The registry is told at once.
   */
  setConcurrency(concurrency: number): void {
    const more = concurrency > this.#slots.concurrency;
    this.#slots.setConcurrency(concurrency);
    if (more) this.#claims.interrupt();
    this.#heartbeats?.beatSoon();
  }

  /** Settles when the worker is about to claim for the first time (true), or was closed before (false). */
  get started(): Promise<boolean> {
    return this.#claims.started;
  }

  /** How many jobs are running now. */
  get running(): number {
    return this.#slots.running.size;
  }

  /** Logs `error` with `message` and emits it to the worker's `error` listeners. */
  reportError(error: unknown, message: string): void {
    this.#context.reportError(error, message);
  }

  /** Shuts down (see `Worker.close`); calling it again returns the same promise. */
  close(graceMs: number): Promise<void> {
    this.#closing ??= shutDown(
      {
        context: this.#context,
        stop: this.#stop,
        slots: this.#slots,
        claims: this.#claims,
        lanes: this.#lanes,
        sweeper: this.#sweeper,
        notices: { close: () => Promise.all([this.#notices.close(), this.#orders?.close()]).then(() => undefined) },
        heartbeats: this.#heartbeats,
        history: this.#history,
        closeQueue: () => {
          this.#options.metrics?.close();
          return Promise.all([this.#starter.close(), this.#options.group.close()]).then(() => undefined);
        },
      },
      graceMs,
    );
    return this.#closing;
  }
}

/** Codes that say Redis itself is out of reach or refuses this client, whatever the worker was doing. */
const REDIS_LEVEL = new Set<string>([JOBS_ERROR_CODES.REDIS_UNAVAILABLE, JOBS_ERROR_CODES.REDIS_AUTH, JOBS_ERROR_CODES.REDIS_NOPERM]);

/**
 * Logs `error` and emits it to the worker's `error` listeners, if any (an `error` event with none
 * would throw). A Redis error is typed first (see `toJobsError`), so no listener or log sees a
 * command's arguments; one that says Redis is away or refuses the worker is logged under its
 * own words (naming Redis), with what the worker was doing as `during`.
 */
function reportError(log: Logger, events: EventEmitter<WorkerEventMap>, raw: unknown, message: string): void {
  const error = toJobsError(raw);
  const code = (error as JobsError | undefined)?.code;
  const fields = { err: error instanceof Error ? { name: error.name, message: error.message, code } : String(error) };
  if (code !== undefined && REDIS_LEVEL.has(code)) log.error({ ...fields, during: message }, (error as Error).message);
  else log.error(fields, message);
  if (events.listenerCount('error') > 0) events.emit('error', error);
}
