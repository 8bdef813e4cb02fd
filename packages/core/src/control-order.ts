/**
 * The orders a queue's workers hear on its control channel (`QueueKeys.control`), one JSON
 * object per message. The scripts and the admin tools publish them; a message lost on the way
 * is made up for elsewhere (a cancel by the next lease renewal's reply, a worker order by the
 * next heartbeat's reply: see scripts/tell-workers.lua), so each only hurries what would
 * happen anyway.
 */
export type ControlOrder =
  /** Job `id` was cancelled while the worker holding claim `token` ran it (see scripts/cancel.lua). */
  | { readonly op: 'cancel'; readonly id: string; readonly token: string }
  | WorkerOrder;

/**
 * An order to one worker (`worker`: its id), numbered `seq` in that worker's registry hash so
 * that the worker obeys each order once, whether it hears it here or reads it back at its next
 * heartbeat: stop claiming (`quiet`), claim again (`resume`), run `concurrency` jobs at once (`scale`).
 */
export type WorkerOrder =
  | { readonly op: 'quiet' | 'resume'; readonly worker: string; readonly seq: number }
  | { readonly op: 'scale'; readonly worker: string; readonly seq: number; readonly concurrency: number };

/** The order in `message`, or undefined for one this version does not know (or not JSON). */
export function parseControlOrder(message: string): ControlOrder | undefined {
  let order: unknown;
  try {
    order = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (typeof order !== 'object' || order === null) return undefined;
  const { op, id, token, worker, seq, concurrency } = order as Record<string, unknown>;
  if (op === 'cancel' && typeof id === 'string' && typeof token === 'string' && token !== '') return { op, id, token };
  if (typeof worker !== 'string' || !Number.isSafeInteger(seq) || (seq as number) < 1) return undefined;
  if (op === 'quiet' || op === 'resume') return { op, worker, seq: seq as number };
  if (op === 'scale' && Number.isSafeInteger(concurrency) && (concurrency as number) >= 1) return { op, worker, seq: seq as number, concurrency: concurrency as number };
  return undefined;
}

/**
 * A stored order read back from a heartbeat's reply (`"<seq>:<value>"`, see
 * scripts/tell-workers.lua): its number and value, or undefined for none (or one malformed).
 */
export function parseStoredOrder(text: string): { seq: number; value: number } | undefined {
  const match = /^(\d{1,15}):(\d{1,15})$/.exec(text);
  if (match === null) return undefined;
  return { seq: Number(match[1]), value: Number(match[2]) };
}
