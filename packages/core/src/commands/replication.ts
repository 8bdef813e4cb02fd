import { NotReplicatedError } from '../errors.ts';
import type { QueueContext } from './queue-context.ts';

/** Throws {@link NotReplicatedError} when durable mode asked for more replicas than `replicas` confirmed. */
export function assertReplicated<P>(ctx: QueueContext<P>, what: string, replicas: number | undefined, ids: readonly string[] = []): void {
  const { replicas: required, timeoutMs } = ctx.options.durability;
  if (replicas !== undefined && replicas < required) throw new NotReplicatedError(what, replicas, required, timeoutMs, ids);
}
