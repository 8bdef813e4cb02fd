// A queue's batches, newest first: where each is (open, sealed, finished), its counts with a bar
// of the jobs that ended, and its callbacks, each linked to its job once fired.

import { get, queuePath } from './api.ts';
import { count, time } from './format.ts';
import { usePolled } from './poll.ts';
import { jobHref } from './router.ts';
import type { BatchRow } from './types.ts';

function Callbacks({ queue, batch }: { queue: string; batch: BatchRow }) {
  if (batch.callbacks.length === 0) return <span class="muted">–</span>;
  return (
    <ul class="callbacks">
      {batch.callbacks.map((callback) => (
        <li key={callback.name} data-callback={callback.name} data-fired={callback.jobId === null ? 'no' : 'yes'}>
          {callback.jobId === null ? (
            <span class="muted">{`${callback.name}: not fired`}</span>
          ) : (
            <a class="mono" href={jobHref(queue, callback.jobId)}>{`${callback.name}: fired`}</a>
          )}
        </li>
      ))}
    </ul>
  );
}

/** The jobs that ended of the total, as a bar (none for a batch with no job or counts that do not add up). */
function Ended({ batch }: { batch: BatchRow }) {
  const { total, pending } = batch;
  if (total === null || pending === null || total <= 0 || pending < 0 || pending > total) return null;
  return <progress class="ended" max={total} value={total - pending} aria-label={`${count(total - pending)} of ${count(total)} ended`} />;
}

function Row({ queue, batch }: { queue: string; batch: BatchRow }) {
  return (
    <tr data-batch={batch.id}>
      <td class="mono" data-col="id">
        {batch.id}
      </td>
      <td data-col="state">
        <span class={`badge batch-${batch.state}`}>{batch.state}</span>
      </td>
      <td data-col="total">{count(batch.total)}</td>
      <td data-col="succeeded">{count(batch.succeeded)}</td>
      <td data-col="failed">{count(batch.failed)}</td>
      <td data-col="cancelled" class="wide-only">
        {count(batch.cancelled)}
      </td>
      <td data-col="pending">
        {count(batch.pending)} <Ended batch={batch} />
      </td>
      <td data-col="callbacks">
        <Callbacks queue={queue} batch={batch} />
      </td>
      <td data-col="created" class="wide-only">
        {time(batch.createdAtMs)}
      </td>
      <td data-col="finished" class="wide-only">
        {time(batch.finishedAtMs)}
      </td>
    </tr>
  );
}

export function BatchesView({ queue }: { queue: string }) {
  const { data, error } = usePolled(() => get<{ batches: BatchRow[] }>(queuePath(queue, 'batches')), [queue]);
  return (
    <section id="batches" aria-label="Batches">
      <h3>Batches</h3>
      {!data ? (
        <p class="muted">{error ? 'The batches could not be read.' : 'Loading…'}</p>
      ) : data.batches.length === 0 ? (
        <p class="muted" id="batches-none">
          No batches: none was opened, or the last finished more than a week ago.
        </p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Batch</th>
                <th>State</th>
                <th>Total</th>
                <th>Succeeded</th>
                <th>Failed</th>
                <th class="wide-only">Cancelled</th>
                <th>Pending</th>
                <th>Callbacks</th>
                <th class="wide-only">Created</th>
                <th class="wide-only">Finished</th>
              </tr>
            </thead>
            <tbody>
              {data.batches.map((batch) => (
                <Row key={batch.id} queue={queue} batch={batch} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
