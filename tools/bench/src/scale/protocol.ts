/**
 * The messages between the scale benchmark's parent and its worker processes (over the IPC
 * channel of `child_process.fork`).
 */

/** Parent to child: start claiming (`go`), or stop, close and report the CPU used (`stop`). */
export type ParentMessage = { type: 'go' } | { type: 'stop' };

/**
 * Child to parent: its workers are started paused (`ready`); the jobs completed since the last
 * such message, by their payload's `n` (`done`); its CPU from `go` to `stop`, after it closed
 * (`stopped`); or why it could not go on (`failed`).
 */
export type ChildMessage =
  | { type: 'ready' }
  | { type: 'done'; ids: number[] }
  | { type: 'stopped'; cpu: NodeJS.CpuUsage }
  | { type: 'failed'; message: string };

/** A child reports its completions once this many have gathered... */
export const BATCH_JOBS = 100;
/** ...or once the oldest unreported one is this old, whichever comes first. */
export const BATCH_MS = 20;

/** True if `value` is a message a child sends (IPC carries whatever a process sends). */
export function isChildMessage(value: unknown): value is ChildMessage {
  if (typeof value !== 'object' || value === null) return false;
  const type = (value as { type?: unknown }).type;
  return type === 'ready' || type === 'done' || type === 'stopped' || type === 'failed';
}

/** True if `value` is a message the parent sends. */
export function isParentMessage(value: unknown): value is ParentMessage {
  if (typeof value !== 'object' || value === null) return false;
  const type = (value as { type?: unknown }).type;
  return type === 'go' || type === 'stop';
}
