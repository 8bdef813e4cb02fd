import { TIMELINE_CAP } from '../generated/constants.ts';
import { assertOptionKeys } from '../option-keys.ts';
import { timelineScript } from '../generated/timeline.ts';
import { assertJobId } from '../keys.ts';
import { parseLogEntry, type LogEvent } from '../log-entry.ts';
import { assertWholeNumber } from '../whole-number.ts';
import type { QueueContext } from './queue-context.ts';

/** A job's own events, oldest first (see {@link Queue.timeline}). */
export interface JobTimeline {
  readonly jobId: string;
  /** Its events still in the log, oldest first. */
  readonly events: LogEvent[];
  /** Events of the job listed in its hash whose entries the capped log has trimmed since (and words there that are no stream id). */
  readonly trimmed: number;
}

/** See {@link Queue.timeline}: from the one context that holds it, or (an id made elsewhere) any of them. */
export async function timeline<P>(holders: readonly QueueContext<P>[], id: string, options: { limit?: number } = {}): Promise<JobTimeline | null> {
  if (holders.length === 1) return timelineIn(holders[0] as QueueContext<P>, id, options);
  const found = await Promise.all(holders.map((ctx) => timelineIn(ctx, id, options)));
  return found.find((timeline) => timeline !== null) ?? null;
}

async function timelineIn<P>(ctx: QueueContext<P>, id: string, options: { limit?: number }): Promise<JobTimeline | null> {
  assertJobId(id);
  assertOptionKeys<{ limit?: number }>('options', options, { limit: true });
  const limit = assertWholeNumber('limit', options.limit ?? TIMELINE_CAP, 1, TIMELINE_CAP);
  const argv = timelineScript.argv({ job: ctx.keys.job(id), log: ctx.keys.log }, { limit });
  const [exists, trimmed, ...entries] = await ctx.scripts.run(timelineScript, argv);
  if (Number(exists) !== 1) return null;
  return { jobId: id, events: entries.map((entry) => parseLogEntry(entry[0] as string, entry, 1)), trimmed: Number(trimmed) };
}
