/**
 * The messages between the worker and an isolated handler's child (a thread or a process), and
 * which parts of the job's context cross over. Every message is a plain object carried by
 * structured clone (postMessage, or IPC with `serialization: 'advanced'`).
 */

/**
 * The context's methods the child's `ctx` forwards to the worker's real one: each call is sent
 * to the parent, run there on the job's `HandlerContext`, and its promise settles with the
 * reply. Another method of the context is one more name here.
 */
export const FORWARDED_METHODS = ['progress', 'extendLease', 'children', 'checkpoint', 'checkpointed', 'snooze'] as const;

/** The context's values copied into the child's `ctx` when its job starts. */
export const FORWARDED_PROPERTIES = ['id', 'kind', 'attempt', 'maxAttempts', 'enqueuedAtMs'] as const;

/** The levels of `ctx.log.<level>(fields, message)`: the worker's logger, bound to the job, in the parent. No reply. */
export const FORWARDED_LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/** What the child names: a forwarded method, `log` (a line stored with the job) or `log.<level>`. */
export type ForwardedCall = (typeof FORWARDED_METHODS)[number] | 'log' | `log.${(typeof FORWARDED_LOG_LEVELS)[number]}`;

/** An error as it crosses the boundary: what the other side needs to make it again (see error-transfer.ts). */
export interface ErrorRecord {
  readonly error: true;
  readonly name: string;
  readonly message: string;
  readonly stack: string | undefined;
  /** Its own enumerable properties that can be cloned (`code`, `field`, `retryAfterMs`, `issues`...). */
  readonly props: Record<string, unknown>;
  readonly cause?: ErrorRecord | { readonly error: false; readonly value: unknown } | undefined;
}

/** Something thrown that is not an Error, cloned as it is (or as its text). */
export interface ThrownValue {
  readonly error: false;
  readonly value: unknown;
}

/** What a thrown value is sent as. */
export type Thrown = ErrorRecord | ThrownValue;

/** Parent to child. */
export type ToChild =
  /** Run one job: `seq` names it in every later message. */
  | { readonly t: 'run'; readonly seq: number; readonly payload: unknown; readonly ctx: Record<string, unknown> }
  /** The attempt must stop: abort the job's signal with this reason. */
  | { readonly t: 'abort'; readonly seq: number; readonly reason: Thrown }
  /** The answer to the child's call `call`. */
  | { readonly t: 'reply'; readonly call: number; readonly ok: true; readonly value: unknown }
  | { readonly t: 'reply'; readonly call: number; readonly ok: false; readonly error: Thrown };

/** Child to parent. */
export type ToParent =
  /** The module loaded and has a handler: the child takes jobs. */
  | { readonly t: 'ready' }
  /** The module could not be loaded, or has no handler: the child exits. */
  | { readonly t: 'load-failed'; readonly error: Thrown }
  /** Job `seq` settled. */
  | { readonly t: 'done'; readonly seq: number; readonly ok: true; readonly value: unknown }
  | { readonly t: 'done'; readonly seq: number; readonly ok: false; readonly error: Thrown }
  /** A context call of job `seq`; `call` is 0 when no reply is wanted. */
  | { readonly t: 'call'; readonly seq: number; readonly call: number; readonly method: ForwardedCall; readonly args: readonly unknown[] }
  /** An uncaught error is about to end the (process) child. */
  | { readonly t: 'uncaught'; readonly error: Thrown };
