import type { Cluster, Redis } from 'ioredis';

/**
 * What a cluster node's error reply tells a client to do. ioredis follows these for single
 * commands, but not for a pipeline with a write in it, such as durable mode's script + `WAIT`.
 */
export type Redirection =
  /** The slot lives on another master now: refresh the slot map and send again. */
  | { readonly kind: 'moved' }
  /** The slot is moving and this node lacks the keys: send once to `address`, after `ASKING`. */
  | { readonly kind: 'ask'; readonly address: string }
  /** The slot is moving and the keys are split between the two nodes: wait a moment, send again. */
  | { readonly kind: 'tryagain' }
  /** No master serves the slot for a moment (a failover under way): wait, refresh the slot map, send again. */
  | { readonly kind: 'down' };

/**
 * The redirection `error` carries, if it is one: its message, or that of the reply error it
 * wraps (a `TRYAGAIN` reaches us as `JOBS_REDIS_UNAVAILABLE` with the reply as its cause), starts
 * with the reply's word.
 */
export function redirectionOf(error: Error): Redirection | undefined {
  const reply = error.cause instanceof Error ? error.cause : error;
  const [word, , address] = reply.message.split(' ');
  if (word === 'MOVED') return { kind: 'moved' };
  if (word === 'ASK' && address) return { kind: 'ask', address };
  if (word === 'TRYAGAIN') return { kind: 'tryagain' };
  if (word === 'CLUSTERDOWN') return { kind: 'down' };
  return undefined;
}

/** Asks the cluster for its slot map again; resolves when the answer is in (or the refresh failed). */
export function refreshSlots(cluster: Cluster): Promise<void> {
  return new Promise((resolve) => cluster.refreshSlotsCache(() => resolve()));
}

/** The cluster client's connection to the master at `host:port`, refreshing the slot map once if it does not know that node yet. */
export async function masterAt(cluster: Cluster, address: string): Promise<Redis | undefined> {
  const find = (): Redis | undefined => cluster.nodes('master').find((node) => `${node.options.host}:${node.options.port}` === address);
  const known = find();
  if (known) return known;
  await refreshSlots(cluster);
  return find();
}
