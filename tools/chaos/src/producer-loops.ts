import { createProducer, type ProducerOptions } from '@jobs/producer';
import { CHAOS_GROUPS, CHAOS_QUEUE, chaosKinds } from './kinds.ts';

/** Options of {@link startProducerLoops}. */
export interface ProducerLoopsOptions {
  /** Where Redis is (a URL, `redis+cluster://` for a cluster). */
  redis: string;
  /** How many loops, each with its own producer. */
  count: number;
  /** Idempotency keys are `<keyPrefix>-<loop>-<n>`. */
  keyPrefix: string;
  /** Durable mode for the producers, when the run asks for it. */
  durability?: ProducerOptions<unknown>['durability'];
  /** Partitions of the chaos queue (round robin over them). Default 1. */
  partitions?: number;
  /**
   * Also enqueue the limited kinds: every third job `capped`, every third `grouped` (in one of
   * {@link CHAOS_GROUPS}), the rest `step`. Default false: `step` only.
   */
  limitedKinds?: boolean;
  /** Called after each acknowledged enqueue. */
  onAcknowledged?: () => void;
  /** Called after each failed enqueue, before it is tried again. */
  onRetry?: (error: unknown) => void;
}

/** Producer loops started by {@link startProducerLoops}. */
export interface ProducerLoops {
  /** Every acknowledged enqueue: idempotency key to job id. */
  readonly acknowledged: Map<string, string>;
  /** The kind of every acknowledged job: job id to kind. */
  readonly kinds: Map<string, string>;
  /** Stops producing and resolves once every loop and its producer have ended. Same promise each call. */
  stop(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts `count` loops that enqueue short jobs on the chaos queue, each under its own
 * idempotency key and retried with the same key until acknowledged, so that whatever the faults
 * do, every key in {@link ProducerLoops.acknowledged} names a job Redis said it holds.
 */
export function startProducerLoops(options: ProducerLoopsOptions): ProducerLoops {
  const acknowledged = new Map<string, string>();
  const kinds = new Map<string, string>();
  const pick = ['step', 'capped', 'grouped'] as const;
  let producing = true;
  const loops = Array.from({ length: options.count }, async (_, loop) => {
    const producer = createProducer({
      redis: options.redis,
      queue: CHAOS_QUEUE,
      kinds: chaosKinds,
      partitions: options.partitions ?? 1,
      commandTimeoutMs: 3_000,
      idempotencyTtlMs: 3_600_000,
      ...(options.durability && { durability: options.durability }),
    });
    let seq = 0;
    while (producing) {
      const key = `${options.keyPrefix}-${loop}-${seq}`;
      try {
        const ms = 5 + Math.floor(Math.random() * 35);
        const kind = options.limitedKinds ? pick[seq % pick.length] ?? 'step' : 'step';
        const group = CHAOS_GROUPS[Math.floor(seq / pick.length) % CHAOS_GROUPS.length] as string;
        const id = kind === 'grouped'
          ? await producer.enqueue(kind, { seq: key, ms, group }, { idempotencyKey: key, group })
          : await producer.enqueue(kind, { seq: key, ms }, { idempotencyKey: key });
        acknowledged.set(key, id);
        kinds.set(id, kind);
        options.onAcknowledged?.();
        seq += 1;
        await sleep(8);
      } catch (error) {
        options.onRetry?.(error);
        await sleep(100);
      }
    }
    await producer.close();
  });
  let stopped: Promise<void> | undefined;
  return {
    acknowledged,
    kinds,
    stop() {
      producing = false;
      stopped ??= Promise.all(loops).then(() => undefined);
      return stopped;
    },
  };
}
