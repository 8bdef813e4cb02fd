/**
 * Helpers of the flow-control verbs of Queue (pause, resume, progress); the rules themselves
 * live in the scripts (scripts/lib/flow.lua, scripts/lib/claim-jobs.lua, scripts/pause.lua).
 */

/** The largest progress value a handler may report, in bytes of JSON. */
export const MAX_PROGRESS_BYTES = 16 * 1024;

/** What the flow hash (`[field, value, ...]`) says of pauses. */
export function readPauseState(flow: readonly string[]): { paused: boolean; kinds: string[] } {
  let paused = false;
  const kinds: string[] = [];
  for (let i = 0; i < flow.length; i += 2) {
    const field = flow[i] as string;
    if (field === 'paused') paused = true;
    else if (field.startsWith('paused_kind:')) kinds.push(field.slice('paused_kind:'.length));
  }
  return { paused, kinds: kinds.sort() };
}

/**
 * Runs the pause script's `resume` and, for a kind, its `unpark` until the kind's parked jobs are
 * all back on their lists (or the kind was paused again meanwhile).
 */
export async function resumeInBatches(run: (action: 'resume' | 'unpark') => Promise<unknown>): Promise<void> {
  let left = Number(await run('resume'));
  while (left > 0) left = Number(await run('unpark'));
}
