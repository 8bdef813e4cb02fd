// The actions an operator takes: each asks for confirmation where it changes many jobs or can't
// be undone (with the count in the question), says how it went, and polls again.

import { jobPath, post, queuePath } from './api.ts';
import { count, jobs } from './format.ts';
import { pollNow } from './poll.ts';
import { confirmAction, say, sayError } from './state.ts';
import type { BulkAnswer, Capabilities } from './types.ts';

/** An action on jobs, by its name in the API. */
export type JobAction = 'retry' | 'cancel' | 'delete' | 'promote' | 'priority';

/** The action's words: the button's label, the verb in a question, the past tense in a message. */
export const ACTION_WORDS: Readonly<Record<JobAction, { label: string; verb: string; done: string }>> = {
  retry: { label: 'Retry', verb: 'Retry', done: 'retried' },
  cancel: { label: 'Cancel', verb: 'Cancel', done: 'cancelled' },
  delete: { label: 'Delete', verb: 'Delete', done: 'deleted' },
  promote: { label: 'Run now', verb: 'Promote (run now)', done: 'promoted' },
  priority: { label: 'Priority…', verb: 'Change the priority of', done: 're-prioritized' },
};

const NOT_STARTED = ['pending', 'waiting', 'delayed', 'prioritized', 'grouped', 'parked', 'waiting-children'];
/** A running job can be cancelled too: its worker is told, and its handler's signal aborts. */
const CANCELLABLE = [...NOT_STARTED, 'processing'];

/** The actions a job in `state` (a list state or a job status) allows, given what the source can do. */
export function actionsFor(state: string, capabilities: Capabilities): JobAction[] {
  const out: JobAction[] = [];
  if (state === 'failed') out.push('retry');
  if (CANCELLABLE.includes(state)) out.push('cancel');
  if (state === 'delayed' && capabilities.promote) out.push('promote');
  if (capabilities.changePriority && ['pending', 'waiting', 'prioritized', 'grouped', 'parked'].includes(state)) out.push('priority');
  if (capabilities.remove && state !== 'processing') out.push('delete');
  return out;
}

/** True when the server takes `POST bulk` (it comes with the ops capabilities). */
export function hasBulk(capabilities: Capabilities): boolean {
  return Boolean(capabilities.remove || capabilities.promote || capabilities.changePriority);
}

/** Runs an action, says how it went, and polls again. */
export async function act(run: () => Promise<string>): Promise<void> {
  try {
    say(await run());
  } catch (error) {
    sayError(error);
  }
  pollNow();
}

/** One job's action (a new priority asked for first). */
export async function jobAction(queue: string, id: string, action: JobAction, currentPriority = 0): Promise<void> {
  let body: Record<string, unknown> = {};
  if (action === 'delete') {
    const answer = await confirmAction({ text: `Delete job ${id} of ${queue}: its record and its place in its list. This cannot be undone.`, okLabel: 'Delete 1 job' });
    if (!answer.ok) return;
  }
  if (action === 'priority') {
    const answer = await confirmAction({ text: `Set the priority of job ${id} (higher starts first).`, okLabel: 'Set priority', number: { label: 'Priority', initial: currentPriority } });
    if (!answer.ok) return;
    body = { priority: answer.value };
  }
  await act(async () => {
    await post(jobPath(queue, id, action), body);
    if (action === 'retry') return `redrove job ${id} to pending`;
    if (action === 'priority') return `set the priority of job ${id} to ${String(body.priority)}`;
    if (action === 'promote') return `promoted job ${id}: it runs now`;
    return `${ACTION_WORDS[action].done} job ${id}`;
  });
}

/** What a bulk action acts on: the selected ids, or every job a list filter matches. */
export type BulkTarget = { readonly ids: readonly string[] } | { readonly filter: Readonly<Record<string, string | number>>; readonly matched: number; readonly description: string };

function bulkText(answer: BulkAnswer, action: JobAction): string {
  const skipped = answer.skipped.length > 0 ? `; ${count(answer.skipped.length)} skipped (${answer.skipped.slice(0, 3).map((s) => `${s.id}: ${s.status}`).join(', ')}${answer.skipped.length > 3 ? ', …' : ''})` : '';
  return `${ACTION_WORDS[action].done} ${count(answer.done)} of ${jobs(answer.matched)}${skipped}${answer.more ? '; more match: run it again for the next ones' : ''}`;
}

/**
 * A bulk action after the operator confirmed its count. By selection without the server's bulk
 * route, retry and cancel go one job at a time; by filter needs the bulk route.
 */
export async function bulkAction(queue: string, action: JobAction, target: BulkTarget, capabilities: Capabilities): Promise<boolean> {
  const n = 'ids' in target ? target.ids.length : target.matched;
  const what = 'ids' in target ? `the ${jobs(n)} selected` : `the ${jobs(n)} ${target.description}`;
  const answer = await confirmAction({
    text: `${ACTION_WORDS[action].verb} ${what} in ${queue}?${action === 'delete' ? ' This cannot be undone.' : ''}`,
    okLabel: `${ACTION_WORDS[action].label.replace('…', '')} ${count(n)}`,
    ...(action === 'priority' && { number: { label: 'New priority', initial: 0 } }),
  });
  if (!answer.ok) return false;
  await act(async () => {
    if (hasBulk(capabilities)) {
      const body = {
        action,
        expected: n,
        ...('ids' in target ? { ids: target.ids } : { filter: target.filter }),
        ...(action === 'priority' && { priority: answer.value }),
      };
      return bulkText(await post<BulkAnswer>(queuePath(queue, 'bulk'), body), action);
    }
    if (!('ids' in target)) throw new Error('this dashboard acts on selected jobs only');
    let done = 0;
    const failed: string[] = [];
    for (const id of target.ids) {
      try {
        await post(jobPath(queue, id, action));
        done++;
      } catch (error) {
        failed.push(`${id}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return `${ACTION_WORDS[action].done} ${count(done)} of ${jobs(target.ids.length)}${failed.length ? `; ${count(failed.length)} refused (${failed.slice(0, 2).join('; ')})` : ''}`;
  });
  return true;
}
