import type { KindLimits, LimitsState } from '@jobs/core';
import type { ShownLimits } from './data-source.ts';

/** A rate limit as a badge says it: `100 / 1000 ms`. */
function rateText(rate: { max: number; windowMs: number }): string {
  return `${rate.max} / ${rate.windowMs} ms`;
}

function addKindLimits(shown: Record<string, string | number>, prefix: string, limits: KindLimits | undefined): void {
  if (limits?.rate) shown[`${prefix} rate`] = rateText(limits.rate);
  if (limits?.concurrency !== undefined) shown[`${prefix} concurrency`] = limits.concurrency;
}

/**
 * A queue's stored limits and pushbacks (core's `Queue.limits()`) as the badges beside its paused
 * state: the queue's rate, each kind's rate and cap, the groups' rate and cap, and each kind a
 * handler's pushback holds, until when (ISO time). Empty when it has none.
 */
export function shownLimits(state: LimitsState): ShownLimits {
  const shown: Record<string, string | number> = {};
  if (state.rate) shown.rate = rateText(state.rate);
  for (const [kind, limits] of Object.entries(state.kinds ?? {}).sort(([a], [b]) => a.localeCompare(b))) addKindLimits(shown, kind, limits);
  addKindLimits(shown, 'groups', state.groups);
  for (const [kind, untilMs] of Object.entries(state.limitedUntil).sort(([a], [b]) => a.localeCompare(b))) {
    shown[`${kind} held until`] = new Date(untilMs).toISOString();
  }
  return shown;
}
