import { JOB_ID_PATTERN, type WorkerInfo } from '@jobs/core';
import type { ServerResponse } from 'node:http';
import type { ApiContext } from './api-routes.ts';
import { batchesLimit, shownBatch } from './batch-route.ts';
import { decodePathPart, HttpError, sendJson } from './http-io.ts';
import { clipText, shownNumber, shownTime } from './shown-values.ts';

/** The most characters of a name (id, kind, host, status) or an error a tree or worker row shows. */
const NAME_CHARS = 200;
const ERROR_CHARS = 4_096;
/** The most running job ids a worker row lists (a heartbeat keeps 100). */
const RUNNING_SHOWN = 100;

const ROUTE = /^\/api\/queues\/([^/]+)\/(workers|batches|jobs\/([^/]+)\/children)$/;

/** A worker as its page shows it: texts cut to a row's size, times a `Date` holds. */
function shownWorker(worker: WorkerInfo): Record<string, unknown> {
  const text = (value: unknown): string => clipText(String(value), NAME_CHARS);
  return {
    id: text(worker.id),
    host: text(worker.host),
    pid: shownNumber(worker.pid),
    version: text(worker.version),
    kinds: (Array.isArray(worker.kinds) ? worker.kinds : []).slice(0, RUNNING_SHOWN).map(text),
    concurrency: shownNumber(worker.concurrency),
    quiet: worker.quiet === true,
    running: (Array.isArray(worker.running) ? worker.running : []).slice(0, RUNNING_SHOWN).map(text),
    runningCount: shownNumber(worker.runningCount),
    startedAtMs: shownTime(worker.startedAtMs),
    lastSeenMs: shownTime(worker.lastSeenMs),
    aliveUntilMs: shownTime(worker.aliveUntilMs),
  };
}

/**
 * Answers the read-only routes of the workspace's pages: `GET /api/queues/:q/workers` (the live
 * workers, capability `workers`), `GET /api/queues/:q/batches?limit=N` (the batches, newest
 * first, capability `batches`) and `GET /api/queues/:q/jobs/:id/children` (a flow's children,
 * capability `children`). False when `path` is none of them.
 */
export async function readRoute(ctx: ApiContext, response: ServerResponse, path: string, params: URLSearchParams): Promise<boolean> {
  const match = ROUTE.exec(path);
  if (!match) return false;
  const queue = decodePathPart(match[1] as string, 'queue');
  if (!(await ctx.source.queueNames()).includes(queue)) throw new HttpError(404, 'no_queue', `no queue ${JSON.stringify(queue)} on this dashboard`);
  if (match[2] === 'workers') {
    if (!ctx.source.workers) throw new HttpError(404, 'no_capability', 'this dashboard reads no worker registry');
    const workers = await ctx.source.workers(queue);
    sendJson(response, 200, { queue, workers: workers.map(shownWorker) });
    return true;
  }
  if (match[2] === 'batches') {
    if (!ctx.source.batches) throw new HttpError(404, 'no_capability', 'this dashboard reads no batches');
    const limit = batchesLimit(params);
    const batches = await ctx.source.batches(queue, { limit });
    sendJson(response, 200, { queue, batches: batches.slice(0, limit).map(shownBatch) });
    return true;
  }
  const id = decodePathPart(match[3] as string, 'id');
  if (!JOB_ID_PATTERN.test(id)) throw new HttpError(400, 'bad_id', 'not a job id: ids are 1-128 letters, digits and . _ : -, starting with a letter or digit', 'id');
  if (!ctx.source.children) throw new HttpError(404, 'no_capability', 'this dashboard reads no flows');
  const children = (await ctx.source.children(queue, id)).map((child) => ({
    id: clipText(String(child.id), NAME_CHARS),
    kind: clipText(String(child.kind), NAME_CHARS),
    status: clipText(String(child.status), NAME_CHARS),
    ...(child.error !== undefined && { error: clipText(String(child.error), ERROR_CHARS) }),
  }));
  sendJson(response, 200, { queue, id, children });
  return true;
}
