/**
 * The orders a queue's workers hear on its control channel (`QueueKeys.control`), one JSON
 * object per message. The scripts and the admin tools publish them; a message lost on the way
 * is made up for elsewhere (a cancel by the next lease renewal's reply), so each only hurries
 * what would happen anyway.
 */
export type ControlOrder =
  /** Job `id` was cancelled while the worker holding claim `token` ran it (see scripts/cancel.lua). */
  { readonly op: 'cancel'; readonly id: string; readonly token: string };

/** The order in `message`, or undefined for one this version does not know (or not JSON). */
export function parseControlOrder(message: string): ControlOrder | undefined {
  let order: unknown;
  try {
    order = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (typeof order !== 'object' || order === null) return undefined;
  const { op, id, token } = order as Record<string, unknown>;
  if (op === 'cancel' && typeof id === 'string' && typeof token === 'string' && token !== '') return { op, id, token };
  return undefined;
}
