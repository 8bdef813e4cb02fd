import type { EnqueueOptions } from '../enqueue-options.ts';
import { InvalidArgumentError, NotReplicatedError } from '../errors.ts';
import { FLOW_DEDUPED } from '../generated/constants.ts';
import { enqueueFlowScript } from '../generated/enqueue-flow.ts';
import type { KindName } from '../kinds.ts';
import type { PartitionRouting } from '../partition-routing.ts';
import { assertJobId } from '../keys.ts';
import { assertOptionKeys, type OptionKeys } from '../option-keys.ts';
import { withRedisErrors } from '../redis-connection.ts';
import { encodeEnqueue } from './enqueue.ts';
import type { QueueContext } from './queue-context.ts';

/** What a parent does when one of its children fails for good (dead-lettered or cancelled). */
export type ChildFailurePolicy = 'fail' | 'ignore';

/**
 * Options of one job of a flow: those of an enqueue (no idempotency key), and for a parent,
 * `onChildFailure`. `dedupe` (but `debounce`) and `unique` on the root only: a flow whose root's
 * key is held is absorbed whole, and a child takes neither (its parent waits for the child it made).
 */
export interface FlowJobOptions extends Omit<EnqueueOptions, 'idempotencyKey' | 'idempotencyTtlMs'> {
  /**
   * `'fail'` (default): a child that fails for good fails this parent, with last_error
   * `JOBS_CHILD_FAILED: child <id> ...`, and that failure goes on up the tree. `'ignore'`: the
   * child counts as settled, its error recorded in the parent's children results. A parent
   * without this option takes its own parent's policy.
   */
  onChildFailure?: ChildFailurePolicy;
}

/** A flow: a job and the children that must settle before it runs, each a flow itself. */
export type FlowRequest<P> = {
  [N in KindName<P>]: { kind: N; payload: P[N]; options?: FlowJobOptions; children?: readonly FlowRequest<P>[] };
}[KindName<P>];

/** The ids {@link Queue.enqueueFlow} gave a flow's jobs, in the shape of the request. */
export interface FlowResult {
  readonly id: string;
  readonly children: readonly FlowResult[];
  /**
   * Set when nothing was written: the root's `dedupe` or `unique` key is held by the job `id`,
   * which absorbed the flow (`children` is then empty).
   */
  readonly heldBy?: 'dedupe' | 'unique';
}

/** A child's outcome as its parent records it; `status` is `waiting` until the child settles. */
export type ChildResult =
  | { readonly status: 'waiting'; readonly kind: string }
  | { readonly status: 'completed'; readonly kind: string; readonly result: unknown }
  | { readonly status: 'failed' | 'cancelled'; readonly kind: string; readonly error: string };

/** Most jobs in one flow, and how deep a flow may nest. */
const MAX_JOBS = 10_000;
const MAX_DEPTH = 32;
/** The keys of a flow's node: any other is refused. */
const FLOW_NODE_KEYS: OptionKeys<{ kind: unknown; payload: unknown; options?: unknown; children?: unknown }> = { kind: true, payload: true, options: true, children: true };
/** Values per job in the script's `jobs` argument. */
const FIELDS = 6;

interface Walk<P> {
  readonly ctx: QueueContext<P>;
  readonly args: string[];
  count: number;
  /** The root's dedupe key, and the option that named it. */
  dedupeKey?: string | undefined;
  dedupeVia?: 'dedupe' | 'unique' | undefined;
}

/**
 * Checks and encodes one node and its subtree (pre-order: a parent before its children). A job
 * without a traceparent of its own takes its parent's (`traceparent`): a flow is one enqueue.
 */
function encodeNode<P>(walk: Walk<P>, node: FlowRequest<P>, field: string, parentId: string, policy: ChildFailurePolicy, depth: number, traceparent: string | undefined): FlowResult {
  assertOptionKeys(field, node, FLOW_NODE_KEYS);
  if (depth > MAX_DEPTH) throw new InvalidArgumentError(field, `a flow nests at most ${MAX_DEPTH} levels`);
  walk.count += 1;
  if (walk.count > MAX_JOBS) throw new InvalidArgumentError('flow', `at most ${MAX_JOBS} jobs per flow`);
  const options = node.options as (FlowJobOptions & { idempotencyKey?: unknown }) | undefined;
  if (options !== undefined) {
    if (typeof options !== 'object' || options === null) throw new InvalidArgumentError(`${field}.options`, 'expected an object');
    if (options.idempotencyKey !== undefined) throw new InvalidArgumentError(`${field}.options.idempotencyKey`, 'a flow job cannot have an idempotency key');
    // A parent waits for each child by id: a child absorbed into another job would never report.
    for (const name of ['dedupe', 'unique'] as const) {
      if (options[name] !== undefined && depth > 1) throw new InvalidArgumentError(`${field}.options.${name}`, `a child of a flow cannot take ${name}: its parent waits for the child it made`);
    }
    if ((options.dedupe as { mode?: unknown } | undefined)?.mode === 'debounce') {
      throw new InvalidArgumentError(`${field}.options.dedupe.mode`, "a flow's root takes mode 'until-done' or 'throttle': a debounce would move its start");
    }
    if (options.onChildFailure !== undefined && options.onChildFailure !== 'fail' && options.onChildFailure !== 'ignore') {
      throw new InvalidArgumentError(`${field}.options.onChildFailure`, `expected 'fail' or 'ignore', got ${JSON.stringify(options.onChildFailure)}`);
    }
  }
  const children = node.children ?? [];
  if (!Array.isArray(children)) throw new InvalidArgumentError(`${field}.children`, 'expected an array');
  const ownPolicy = options?.onChildFailure ?? policy;
  const enqueueOptions: FlowJobOptions = { ...options };
  delete enqueueOptions.onChildFailure;
  if (enqueueOptions.traceparent === undefined && traceparent !== undefined) enqueueOptions.traceparent = traceparent;
  const request = { kind: node.kind, payload: node.payload, ...((options !== undefined || traceparent !== undefined) && { options: enqueueOptions }) };
  const prepared = encodeEnqueue(walk.ctx, request as never, `${field}.payload`, `${field}.options`);
  if (depth === 1) {
    walk.dedupeKey = prepared.dedupeKey;
    walk.dedupeVia = prepared.dedupeVia;
  }
  walk.args.push(...prepared.args, parentId, children.length > 0 ? ownPolicy : '');
  return {
    id: prepared.id,
    children: children.map((child: FlowRequest<P>, i: number) => encodeNode(walk, child, `${field}.children[${i}]`, prepared.id, ownPolicy, depth + 1, enqueueOptions.traceparent)),
  };
}

/** A flow checked and encoded for the script, nothing written yet. */
export interface PreparedFlow {
  readonly tree: FlowResult;
  readonly args: readonly string[];
  /** The root's dedupe key, when it has one, and the option that named it. */
  readonly dedupeKey: string | undefined;
  readonly dedupeVia: 'dedupe' | 'unique' | undefined;
}

/** Checks every job of a flow (kinds, payloads, options) and encodes it, writing nothing. */
export function prepareFlow<P>(ctx: QueueContext<P>, flow: FlowRequest<P>): PreparedFlow {
  const walk: Walk<P> = { ctx, args: [], count: 0 };
  const tree = encodeNode(walk, flow, 'flow', '', 'fail', 1, undefined);
  return { tree, args: walk.args, dedupeKey: walk.dedupeKey, dedupeVia: walk.dedupeVia };
}

/**
 * See {@link Queue.enqueueFlow}. A flow's jobs share one hash slot, so on a partitioned queue
 * the whole flow goes to one partition, the next in the round robin.
 */
export async function enqueueFlow<P>(routing: PartitionRouting<P>, flow: FlowRequest<P>): Promise<FlowResult> {
  let partition = routing.sole;
  if (partition === undefined) {
    // A root's dedupe key holds in one partition, the one the key picks (as an enqueue's).
    const options = (flow as { options?: { dedupe?: { key?: unknown }; unique?: { key?: unknown } } } | null)?.options;
    const key = (options?.dedupe ?? options?.unique)?.key;
    partition = routing.partitionFor(typeof key === 'string' && key.length > 0 && key.length <= 512 ? { partitionKey: key } : undefined);
    await routing.ensureLayout();
  }
  return writeFlow(partition.ctx, prepareFlow(partition.ctx, flow));
}

/** Writes a prepared flow in one script call. */
export async function writeFlow<P>(ctx: QueueContext<P>, flow: PreparedFlow): Promise<FlowResult> {
  const k = ctx.keys;
  const argv = enqueueFlowScript.argv(
    { pending: k.pending, delayed: k.delayed, stats: k.stats, log: k.log, jobKeys: flow.dedupeKey === undefined ? [] : [flow.dedupeKey] },
    { count: flow.args.length / FIELDS, jobPrefix: k.jobPrefix, wakeChannel: k.wake, prefix: k.prefix, logMaxLen: ctx.logMaxLen, metrics: ctx.metrics, jobs: flow.args as string[] },
  );
  const { reply, replicas } = await ctx.scripts.runAcknowledged(enqueueFlowScript, argv, false);
  const absorbedInto = Number(reply[0]) === FLOW_DEDUPED ? String(reply[1]) : undefined;
  const { replicas: required, timeoutMs } = ctx.options.durability;
  if (replicas !== undefined && replicas < required) {
    const ids: string[] = [];
    if (absorbedInto === undefined) for (let i = 0; i < flow.args.length; i += FIELDS) ids.push(flow.args[i] as string);
    throw new NotReplicatedError(`flow ${flow.tree.id}`, replicas, required, timeoutMs, ids);
  }
  if (absorbedInto !== undefined) return { id: absorbedInto, children: [], heldBy: flow.dedupeVia ?? 'dedupe' };
  return flow.tree;
}

/** Reads a child's entry as the scripts write it (scripts/lib/flow-children.lua). */
function parseEntry(raw: string): ChildResult {
  try {
    return JSON.parse(raw) as ChildResult;
  } catch {
    return { status: 'failed', kind: '', error: `unreadable child entry: ${raw.slice(0, 100)}` };
  }
}

/**
 * The children of parent `id` and how each settled, by child id: `{}` for a job without children
 * (or none at all). See {@link Queue.children}.
 */
export async function readChildren<P>(ctx: QueueContext<P>, id: string): Promise<Record<string, ChildResult>> {
  assertJobId(id);
  await ctx.ready();
  const key = ctx.keys.job(id);
  const list = await withRedisErrors(() => ctx.client.hget(key, 'children'));
  if (list === null) return {};
  const ids = JSON.parse(list) as string[];
  const entries = await withRedisErrors(() => ctx.client.hmget(key, ...ids.map((child) => `child:${child}`)));
  const out: Record<string, ChildResult> = {};
  ids.forEach((child, i) => {
    const raw = entries[i];
    if (raw !== null && raw !== undefined) out[child] = parseEntry(raw);
  });
  return out;
}
