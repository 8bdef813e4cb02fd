import type { JobWhy, WhyReason } from './commands/why.ts';

/** `ms` from `now` in words: `in 4 s`, `3 min ago`, `now`. */
export function relativeTime(ms: number, now: number): string {
  const delta = ms - now;
  const size = Math.abs(delta);
  if (size < 1_000) return 'now';
  const [amount, unit] = size < 60_000 ? [size / 1_000, 's'] : size < 3_600_000 ? [size / 60_000, 'min'] : size < 86_400_000 ? [size / 3_600_000, 'h'] : [size / 86_400_000, 'd'];
  const text = `${Math.round(amount)} ${unit}`;
  return delta > 0 ? `in ${text}` : `${text} ago`;
}

/** A time as ISO 8601 with how far it is from the look: `2026-12-02T02:10:00.000Z (in 4 s)`; as given when no `Date` holds it. */
function at(ms: number, now: number): string {
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return String(ms);
  return `${new Date(ms).toISOString()} (${relativeTime(ms, now)})`;
}

function jobs(count: number): string {
  return count === 1 ? '1 job' : `${count} jobs`;
}

function ids(list: readonly string[], count: number): string {
  const shown = list.join(', ');
  return count > list.length ? `${shown} and ${count - list.length} more` : shown;
}

/** One reason as a line for people. */
export function reasonLine(reason: WhyReason, now: number): string {
  switch (reason.code) {
    case 'queue-paused':
      return `the queue is paused${reason.sinceMs === null ? ' (since when was not recorded)' : ` since ${at(reason.sinceMs, now)}`}${reason.pausedBy === undefined ? '' : ` by ${reason.pausedBy}`}: jobsctl resume`;
    case 'kind-paused':
      return `kind ${reason.kind} is paused${reason.sinceMs === null ? ' (since when was not recorded)' : ` since ${at(reason.sinceMs, now)}`}${reason.pausedBy === undefined ? '' : ` by ${reason.pausedBy}`}: jobsctl resume --kind ${reason.kind}`;
    case 'rate-limited': {
      const whose = reason.scope === 'queue' ? "the queue's rate limit" : reason.scope === 'kind' ? `the rate limit of kind ${reason.kind}` : `the rate limit of group ${reason.group}`;
      if (reason.spread) return `${whose} spreads its starts (${reason.max} in ${reason.windowMs} ms, ${reason.burst ?? 1} at once at most): the next start may come at ${at(reason.untilMs, now)}`;
      return `${whose} is full (${reason.max} starts in ${reason.windowMs} ms): the next start may come at ${at(reason.untilMs, now)}`;
    }
    case 'pushed-back':
      return `a handler said the service behind kind ${reason.kind} pushed back: held until ${at(reason.untilMs, now)}`;
    case 'queue-cap-full':
    case 'kind-cap-full':
    case 'group-cap-full': {
      const whose = reason.code === 'queue-cap-full' ? 'the queue' : reason.code === 'kind-cap-full' ? `kind ${reason.kind}` : `group ${reason.group}`;
      const frees = reason.freesAtMs === null ? '' : `; a slot frees at ${at(reason.freesAtMs, now)}`;
      return `${whose} may run ${reason.cap} at a time, and its slots are held by ${reason.heldBy.join(', ')}${reason.more ? ' and more' : ''}${frees}`;
    }
    case 'waiting-children':
      return `a flow's parent waiting for ${reason.left === 1 ? '1 child' : `${reason.left} children`} to settle: ${ids(reason.children, reason.left)}`;
    case 'delayed':
      return reason.retry ? `a retry after attempt ${reason.attempts}, waiting out its backoff until ${at(reason.untilMs, now)}` : `delayed until ${at(reason.untilMs, now)}`;
    case 'behind-higher-priority':
      return `behind ${jobs(reason.jobs)} waiting at a higher priority than its ${reason.priority}`;
    case 'queued': {
      const list = reason.list === 'pending' ? 'pending' : `the list of priority ${reason.priority}`;
      if (reason.atLeast) return `more than ${jobs(reason.ahead)} ahead of it in ${list}`;
      return reason.ahead === 0 ? `next in line in ${list}` : `${jobs(reason.ahead)} ahead of it in ${list}`;
    }
    case 'parked':
      return `parked: set aside while kind ${reason.kind} is paused or limited, ${jobs(reason.ahead)} of the kind before it`;
    case 'group-turn': {
      const turn = reason.turnAtMs === null ? '' : ` (the next turn may be taken at ${at(reason.turnAtMs, now)})`;
      return `waiting for group ${reason.group}'s turn${turn}, ${jobs(reason.ahead)} of the group before it`;
    }
    case 'not-listed':
      return 'in none of the lists workers take jobs from: nothing will start it (written by another client, or lost)';
    case 'no-live-worker':
      return `no live worker handles kind ${reason.kind} (${reason.liveWorkers === 1 ? '1 worker is' : `${reason.liveWorkers} workers are`} alive for other kinds)`;
    case 'expired': {
      const when = reason.expiresAtMs === null ? 'its ttl passed' : `its ttl passed at ${at(reason.expiresAtMs, now)}`;
      return reason.atMs === null ? `expired: ${when}; it will not run (the next claim to meet it fails it)` : `expired: ${when}; failed at ${at(reason.atMs, now)}`;
    }
    case 'running': {
      const by = reason.worker === null ? 'a worker the event log does not name' : `worker ${reason.worker}`;
      const since = reason.claimedAtMs === null ? '' : ` at ${at(reason.claimedAtMs, now)}`;
      const lease = reason.leaseExpiresAtMs === null ? '' : reason.leaseExpiresAtMs > now ? `, its lease until ${at(reason.leaseExpiresAtMs, now)}` : `, its lease ended at ${at(reason.leaseExpiresAtMs, now)} (a reclaim puts it back)`;
      return `running: claimed by ${by}${since}${lease}`;
    }
    case 'completed':
      return reason.atMs === null ? 'completed' : `completed at ${at(reason.atMs, now)}`;
    case 'failed':
      return `failed for good${reason.atMs === null ? '' : ` at ${at(reason.atMs, now)}`} after ${reason.attempts} attempt(s): ${reason.error.replace(/\s+/g, ' ')}`;
    case 'cancelled':
      return reason.atMs === null ? 'cancelled' : `cancelled at ${at(reason.atMs, now)}`;
  }
}

/** `jobsctl why`: the job and its status, then a line per reason. */
export function whyText(answer: JobWhy): string {
  const head = `${answer.id}${answer.kind === undefined ? '' : ` (${answer.kind})`}: ${answer.status}`;
  const lines = answer.reasons.length === 0 ? ['  no reason known for this status'] : answer.reasons.map((reason) => `  - ${reasonLine(reason, answer.atMs)}`);
  return [head, ...lines].join('\n');
}
