// A queue's live workers (from their heartbeats), and one worker's page with the jobs it runs.

import { act } from './actions.ts';
import { get, post, queuePath } from './api.ts';
import { count, duration, time } from './format.ts';
import { usePolled } from './poll.ts';
import { jobHref, queueHref } from './router.ts';
import { useOperator, useSession } from './state.ts';
import type { WorkerRow } from './types.ts';

/** Tells the queue's live workers (or one) to stop claiming or to claim again, and says how many heard. */
function order(queue: string, op: 'quiet-workers' | 'resume-workers', workerId?: string): void {
  void act(async () => {
    const { told } = await post<{ told: string[] }>(queuePath(queue, op), workerId === undefined ? {} : { workerId });
    const what = op === 'quiet-workers' ? 'to stop claiming (running jobs finish)' : 'to claim again';
    return `told ${count(told.length)} worker(s) of ${queue} ${what}`;
  });
}

/** The operator's quiet (or, for a quiet worker, resume) button of one worker's row. */
function OrderButton({ queue, worker }: { queue: string; worker: WorkerRow }) {
  const op = worker.quiet ? 'resume-workers' : 'quiet-workers';
  return (
    <button type="button" class="small" data-order={op} onClick={() => order(queue, op, worker.id)}>
      {worker.quiet ? 'Resume' : 'Quiet'}
    </button>
  );
}

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
  const ordering = useOperator() && Boolean(useSession().capabilities.workerOrders);
  const { data, error } = usePolled(() => get<{ workers: WorkerRow[] }>(queuePath(queue, 'workers')), [queue]);
  if (!data) return <p class="muted">{error ? 'The workers could not be read.' : 'Loading…'}</p>;
  if (id !== undefined) {
    const worker = data.workers.find((candidate) => candidate.id === id);
    return worker ? <WorkerDetail queue={queue} worker={worker} /> : <p class="muted" id="worker-missing">{`No live worker ${id}: it has not sent a heartbeat within its TTL.`}</p>;
  }
  return (
    <section id="workers" aria-label="Workers">
      <h3>{`Live workers: ${count(data.workers.length)}`}</h3>
      {ordering && data.workers.length > 0 && (
        <p id="worker-orders" class="inline">
          <button type="button" class="small" data-order="quiet-workers" onClick={() => order(queue, 'quiet-workers')}>
            Quiet all
          </button>
          <button type="button" class="small" data-order="resume-workers" onClick={() => order(queue, 'resume-workers')}>
            Resume all
          </button>
          <span class="muted">Quiet workers claim no new jobs; the jobs they run finish. Workers started later claim.</span>
        </p>
      )}
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
                  <td>
                    <span data-claiming={worker.quiet ? 'quiet' : 'yes'}>{worker.quiet ? 'quiet' : 'yes'}</span> {ordering && <OrderButton queue={queue} worker={worker} />}
                  </td>
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
