import { UnknownKindError } from '@jobs/core';
import type { Clock } from './clock.ts';
import type { Execution } from './execution.ts';
import type { WorkerContext } from './worker-context.ts';

/**
 * How long a count of the live workers for a kind is reused, so a burst of such jobs reads the
 * registry once (ms). A count of none is not reused: the worker that brings the kind may have
 * just started.
 */
const LIVE_COUNT_MS = 1_000;

/** What a {@link KindHandOff} needs: the grace, the worker's kinds, and who in the registry handles a kind. */
export interface KindHandOffOptions {
  /** How long a job of an unknown kind may wait with no live worker for it before it fails (ms). */
  readonly graceMs: number;
  /** The kinds this worker knows. */
  readonly known: readonly string[];
  /** The live workers of the queue's registry and the kinds each handles. */
  readonly liveWorkers: () => Promise<readonly { readonly kinds: readonly string[] }[]>;
}

/**
 * A rolling deploy's first jobs of a new kind reach workers that do not know it yet. Such a job
 * is handed back (see `Partition.handOff`) instead of failed: it waits for a worker of the
 * registry that handles the kind, and fails only once the grace has passed with none alive. This
 * worker warns once per kind.
 */
export class KindHandOff {
  readonly #options: KindHandOffOptions;
  readonly #context: WorkerContext;
  readonly #clock: Clock;
  readonly #warned = new Set<string>();
  readonly #counts = new Map<string, { at: number; count: number }>();

  constructor(options: KindHandOffOptions, context: WorkerContext) {
    this.#options = options;
    this.#context = context;
    this.#clock = context.clock;
  }

  /** Hands `execution`'s job (of unknown `kind`) back, then calls `finish`; never throws. */
  async handOff(execution: Execution, kind: string, finish: () => void): Promise<void> {
    const { job, lane } = execution;
    const { events, log } = this.#context;
    try {
      const live = await this.#liveCount(kind);
      const outcome = await lane.queue.handOff(job, kind, this.#options.graceMs, live, this.#options.known);
      if (!this.#warned.has(kind)) {
        this.#warned.add(kind);
        log.warn({ kind, known: this.#options.known, liveWorkers: live, graceMs: this.#options.graceMs }, `a job of kind "${kind}", which this worker has no handler for, was handed back for a worker that has one; it fails if none is alive for graceMs`);
      }
      if (outcome.outcome === 'failed') events.emit('failed', { job, error: new UnknownKindError(kind, this.#options.known) });
    } catch (error) {
      // Its lease lapses and the sweep hands it back: the job is not lost.
      this.#context.reportError(error, `could not hand back a job of unknown kind "${kind}"`);
    } finally {
      finish();
    }
  }

  /** The live workers of the registry that handle `kind`: some counted in the last second, or counted now. */
  async #liveCount(kind: string): Promise<number> {
    const now = this.#clock.now();
    const cached = this.#counts.get(kind);
    if (cached !== undefined && now - cached.at < LIVE_COUNT_MS) return cached.count;
    const workers = await this.#options.liveWorkers().catch(() => []);
    const count = workers.filter((worker) => worker.kinds.includes(kind)).length;
    if (count > 0) this.#counts.set(kind, { at: now, count });
    else this.#counts.delete(kind);
    return count;
  }
}
