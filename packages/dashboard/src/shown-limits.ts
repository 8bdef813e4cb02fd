import type { KindLimits, LimitsState, RateLimit } from '@jobs/core';
import type { ShownLimits } from './data-source.ts';

/** A rate limit as a badge says it: `100 / 1000 ms`, or `100 / 1000 ms spread, burst 2`. */
function rateText(rate: RateLimit): string {
  return `${rate.max} / ${rate.windowMs} ms${rate.spread ? `, spread, burst ${rate.burst ?? 1}` : ''}`;
}

function addKindLimits(shown: Record<string, string | number>, prefix: string, limits: KindLimits | undefined): void {
  if (limits?.rate) shown[`${prefix} rate`] = rateText(limits.rate);
  if (limits?.concurrency !== undefined) shown[`${prefix} concurrency`] = limits.concurrency;
}

/**
 * A queue's stored limits and pushbacks (core's `Queue.limits()`) as the badges beside its paused
 * state: the queue's rate and cap, each kind's rate and cap, the groups' rate and cap, and each
 * kind a handler's pushback holds, until when (ISO time). Empty when it has none.
 */
export function shownLimits(state: LimitsState): ShownLimits {
  const shown: Record<string, string | number> = {};
  if (state.rate) shown.rate = rateText(state.rate);
  if (state.concurrency !== undefined) shown.concurrency = state.concurrency;
  for (const [kind, limits] of Object.entries(state.kinds ?? {}).sort(([a], [b]) => a.localeCompare(b))) addKindLimits(shown, kind, limits);
  addKindLimits(shown, 'groups', state.groups);
  for (const [kind, untilMs] of Object.entries(state.limitedUntil).sort(([a], [b]) => a.localeCompare(b))) {
    shown[`${kind} held until`] = new Date(untilMs).toISOString();
  }
  return shown;
}
