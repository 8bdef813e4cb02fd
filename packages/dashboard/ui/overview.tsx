// The overview: a card per queue with its depths, the oldest pending job's age, its paused
// state, limits and live workers, and a chart of its rates.

import { Chart, type Series } from './chart.tsx';
import { count, duration } from './format.ts';
import { queueHref } from './router.ts';
import type { Admission, Overview, QueueOverview, Stats } from './types.ts';

const DEPTHS: readonly [string, keyof Stats][] = [
  ['pending', 'pendingDepth'],
  ['processing', 'processingDepth'],
  ['delayed', 'delayedDepth'],
  ['completed', 'completedDepth'],
  ['failed', 'failedDepth'],
];

export const RATE_SERIES: readonly Series[] = [
  { label: 'completed/s', color: '#1f8a4c' },
  { label: 'failed/s', color: '#c0392b' },
  { label: 'enqueued/s', color: '#2456c7', dash: [4, 3] },
];

/**
 * The queue's paused state, paused kinds and limits as badges; with `liveWorkers` 0 (when the
 * source reads the worker registry) "no live worker" in place of "running".
 */
export function FlowBadges({ flow, liveWorkers }: { flow: Admission | undefined; liveWorkers: number | undefined }) {
  const noWorker = liveWorkers === 0;
  return (
    <>
      {flow && (flow.paused || !noWorker) && (
        <span class={flow.paused ? 'badge paused' : 'badge running'} data-flow={flow.paused ? 'paused' : 'running'}>
          {flow.paused ? 'paused' : 'running'}
        </span>
      )}
      {noWorker && (
        <span class="badge no-worker" data-workers="none" title="no worker of this queue has sent a heartbeat within its TTL">
          no live worker
        </span>
      )}
      {(flow?.pausedKinds ?? []).map((kind) => (
        <span key={`k-${kind}`} class="badge paused" data-paused-kind={kind}>
          {`${kind} paused`}
        </span>
      ))}
      {Object.entries(flow?.limits ?? {}).map(([name, value]) => (
        <span key={`l-${name}`} class="badge" data-limit={name}>
          {`${name}: ${value ?? '–'}`}
        </span>
      ))}
    </>
  );
}

/**
 * Jobs waiting outside the pending list (other priorities, parked kinds, groups' turns), or
 * nothing; a link to the waiting list when the stats count it.
 */
export function WaitingElsewhere({ queue, stats }: { queue: string; stats: Stats }) {
  const parts: string[] = [];
  if (stats.prioritizedDepth) parts.push(`+${count(stats.prioritizedDepth)} waiting at other priorities`);
  if (stats.parkedDepth) parts.push(`${count(stats.parkedDepth)} set aside while their kind is paused or limited`);
  if (stats.groupedDepth) parts.push(`${count(stats.groupedDepth)} waiting for their group's turn`);
  // Too many groups to count their jobs on every poll: the groups, then.
  if (stats.groupedDepth === null) parts.push(`jobs of ${count(stats.groupsWaiting)} group${stats.groupsWaiting === 1 ? '' : 's'} waiting for their turn`);
  if (parts.length === 0) return null;
  const text = parts.join(' · ');
  return (
    <p class="muted note" data-stat="elsewhere">
      {stats.waitingDepth === undefined ? text : <a href={queueHref(queue, 'waiting')}>{text}</a>}
    </p>
  );
}

/** The rate points as uPlot's columns: x in seconds, then each series. */
function rateColumns(rates: QueueOverview['rates']): number[][] {
  return [rates.map((p) => p.atMs / 1000), rates.map((p) => p.completedPerSecond), rates.map((p) => p.failedPerSecond), rates.map((p) => p.enqueuedPerSecond)];
}

function QueueCard({ queue }: { queue: QueueOverview }) {
  const { name, stats } = queue;
  return (
    <article class="card queue-card" data-queue={name}>
      <h2>
        <a href={queueHref(name)}>{name}</a> <FlowBadges flow={queue.flow} liveWorkers={queue.liveWorkers} />
      </h2>
      <dl class="depths">
        {DEPTHS.map(([state, field]) => (
          <div key={state} data-stat={state}>
            <dt>{state}</dt>
            <dd>
              <a href={queueHref(name, state)}>{count(stats[field])}</a>
            </dd>
          </div>
        ))}
        <div data-stat="oldest">
          <dt>oldest pending</dt>
          <dd>{duration(stats.oldestPendingAgeMs)}</dd>
        </div>
      </dl>
      <WaitingElsewhere queue={name} stats={stats} />
      {queue.rates.length === 0 ? (
        <p class="muted chart-empty" data-points="0">
          collecting rates…
        </p>
      ) : (
        <Chart data={rateColumns(queue.rates)} series={RATE_SERIES} title={`${name}: jobs per second`} height={120} />
      )}
    </article>
  );
}

export function OverviewView({ overview, error }: { overview: Overview | undefined; error: unknown }) {
  if (!overview) return <p class="muted">{error ? 'The overview could not be read.' : 'Loading…'}</p>;
  if (overview.queues.length === 0) return <p class="muted">No queues yet: the dashboard shows every queue the daemon serves.</p>;
  return (
    <section id="overview" aria-label="Queues">
      <div class="cards">
        {overview.queues.map((queue) => (
          <QueueCard key={queue.name} queue={queue} />
        ))}
      </div>
    </section>
  );
}
