// A queue's live workers (from their heartbeats), and one worker's page with the jobs it runs.

import { get, queuePath } from './api.ts';
import { count, duration, time } from './format.ts';
import { usePolled } from './poll.ts';
import { jobHref, queueHref } from './router.ts';
import type { WorkerRow } from './types.ts';

function WorkerDetail({ queue, worker }: { queue: string; worker: WorkerRow }) {
  return (
    <section id="worker" aria-label="Worker">
      <h3>
        Worker <span class="mono" id="worker-id">{worker.id}</span>
      </h3>
      <dl class="pairs">
        <dt>host</dt>
        <dd id="worker-host">{worker.host}</dd>
        <dt>pid</dt>
        <dd>{count(worker.pid)}</dd>
        <dt>version</dt>
        <dd>{worker.version || '–'}</dd>
        <dt>kinds</dt>
        <dd id="worker-kinds">{worker.kinds.join(', ') || '–'}</dd>
        <dt>concurrency</dt>
        <dd>{count(worker.concurrency)}</dd>
        <dt>claiming</dt>
        <dd id="worker-claiming">{worker.quiet ? 'no: quiet (its running jobs finish)' : 'yes'}</dd>
        <dt>started</dt>
        <dd>{time(worker.startedAtMs)}</dd>
        <dt>last seen</dt>
        <dd>{time(worker.lastSeenMs)}</dd>
        <dt>alive until</dt>
        <dd>{time(worker.aliveUntilMs)}</dd>
      </dl>
      <h3>{`Running ${count(worker.runningCount)}`}</h3>
      {worker.running.length === 0 ? (
        <p class="muted">Nothing running at its last heartbeat.</p>
      ) : (
        <ul id="worker-running">
          {worker.running.map((id) => (
            <li key={id}>
              <a class="mono" href={jobHref(queue, id)}>
                {id}
              </a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function WorkersView({ queue, id }: { queue: string; id: string | undefined }) {
  const { data, error } = usePolled(() => get<{ workers: WorkerRow[] }>(queuePath(queue, 'workers')), [queue]);
  if (!data) return <p class="muted">{error ? 'The workers could not be read.' : 'Loading…'}</p>;
  if (id !== undefined) {
    const worker = data.workers.find((candidate) => candidate.id === id);
    return worker ? <WorkerDetail queue={queue} worker={worker} /> : <p class="muted" id="worker-missing">{`No live worker ${id}: it has not sent a heartbeat within its TTL.`}</p>;
  }
  return (
    <section id="workers" aria-label="Workers">
      <h3>{`Live workers: ${count(data.workers.length)}`}</h3>
      {data.workers.length === 0 ? (
        <p class="muted">No live worker: none has sent a heartbeat within its TTL.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Worker</th>
                <th>Host</th>
                <th class="wide-only">Kinds</th>
                <th>Running</th>
                <th>Claiming</th>
                <th class="wide-only">Last seen</th>
              </tr>
            </thead>
            <tbody>
              {data.workers.map((worker) => (
                <tr key={worker.id} data-worker={worker.id}>
                  <td class="mono">
                    <a href={queueHref(queue, `workers/${encodeURIComponent(worker.id)}`)}>{worker.id}</a>
                  </td>
                  <td>{`${worker.host} (pid ${count(worker.pid)})`}</td>
                  <td class="wide-only">{worker.kinds.join(', ')}</td>
                  <td>{`${count(worker.runningCount)} of ${count(worker.concurrency)}`}</td>
                  <td data-claiming={worker.quiet ? 'quiet' : 'yes'}>{worker.quiet ? 'quiet' : 'yes'}</td>
                  <td class="wide-only">{worker.lastSeenMs === null || worker.aliveUntilMs === null ? '–' : `${time(worker.lastSeenMs)} (alive ${duration(worker.aliveUntilMs - worker.lastSeenMs)} more)`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
