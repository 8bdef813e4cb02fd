// One queue's frame: its title and badges, its queue-wide actions, a find-by-id box, the tabs of
// its state lists and its other pages, then the view the URL names.

import { useState } from 'preact/hooks';
import { post, queuePath } from './api.ts';
import { act } from './actions.ts';
import { AuditView } from './audit.tsx';
import { BatchesView } from './batches.tsx';
import { count } from './format.ts';
import { HistoryView } from './history.tsx';
import { JobList } from './job-list.tsx';
import { JobView } from './job-view.tsx';
import { FlowBadges, WaitingElsewhere } from './overview.tsx';
import { navigate, jobHref, queueHref, type Route } from './router.ts';
import { SchedulesView } from './schedules.tsx';
import { confirmAction, useOperator, useSession } from './state.ts';
import type { Overview, QueueOverview, Stats } from './types.ts';
import { WorkersView } from './workers.tsx';

/** The states a list can show, in tab order, when the server does not say. */
const DEFAULT_STATES = ['pending', 'waiting', 'processing', 'delayed', 'completed', 'failed'];
/** The state a queue's page opens on. */
export const DEFAULT_STATE = 'failed';

const DEPTH_FIELD: Readonly<Record<string, string>> = { 'waiting-children': 'waitingChildrenDepth' };

/**
 * A state's depth for its tab, or null when the stats have none. The waiting jobs are not counted
 * when too many groups wait: then at least those outside the groups' lists, with a plus.
 */
function depthText(stats: Stats, state: string): string | null {
  const depth = stats[DEPTH_FIELD[state] ?? `${state}Depth`];
  if (typeof depth === 'number') return count(depth);
  if (state === 'waiting' && depth === null) return `${count(stats.pendingDepth + (stats.prioritizedDepth ?? 0) + (stats.parkedDepth ?? 0))}+`;
  return null;
}

function QueueActions({ queue }: { queue: QueueOverview }) {
  const session = useSession();
  const name = queue.name;
  if (session.role !== 'operator') return <span id="queue-actions">read-only</span>;
  const canPause = session.capabilities.pause && Boolean(queue.flow);
  const failed = queue.stats.failedDepth;
  const redrive = async (): Promise<void> => {
    const answer = await confirmAction({ text: `Redrive the ${count(failed)} failed job(s) of ${name} back to pending, with fresh attempts?`, okLabel: `Redrive ${count(failed)}` });
    if (!answer.ok) return;
    await act(async () => {
      const done = await post<{ redriven: number }>(queuePath(name, 'redrive-failed'), { expected: failed });
      return `redrove ${count(done.redriven)} failed job(s) of ${name}`;
    });
  };
  const purge = async (): Promise<void> => {
    const answer = await confirmAction({ text: `Purge ${name}: delete every job, list and counter of it. This cannot be undone.`, okLabel: 'Purge', typed: name });
    if (!answer.ok) return;
    await act(async () => {
      const done = await post<{ deletedKeys: number }>(queuePath(name, 'purge'), { confirm: name });
      // Its jobs are gone: back to the queue's page, not a job that no longer exists.
      navigate(queueHref(name), true);
      return `purged ${name}: deleted ${count(done.deletedKeys)} key(s)`;
    });
  };
  const paused = queue.flow?.paused ?? false;
  return (
    <span id="queue-actions">
      {canPause && (
        <button id="pause-toggle" type="button" onClick={() => void act(async () => (await post(queuePath(name, paused ? 'resume' : 'pause')), `${paused ? 'resumed' : 'paused'} ${name}`))}>
          {paused ? 'Resume' : 'Pause'}
        </button>
      )}
      {failed > 0 && (
        <button id="redrive-all" type="button" onClick={() => void redrive()}>
          Redrive all failed
        </button>
      )}
      <button id="purge" type="button" class="danger" onClick={() => void purge()}>
        Purge
      </button>
    </span>
  );
}

function KindPause({ queue }: { queue: QueueOverview }) {
  const [kind, setKind] = useState('');
  return (
    <form
      id="kind-pause-form"
      class="inline"
      onSubmit={(event) => {
        event.preventDefault();
        const chosen = kind.trim();
        setKind('');
        void act(async () => (await post(queuePath(queue.name, 'pause'), { kind: chosen }), `paused kind ${chosen} of ${queue.name}`));
      }}
    >
      <label>
        Pause kind <input id="pause-kind" name="kind" list="known-kinds" autocomplete="off" spellcheck={false} size={12} required value={kind} onInput={(event) => setKind(event.currentTarget.value)} />
      </label>
      <datalist id="known-kinds">
        {(queue.flow?.kinds ?? []).map((name) => (
          <option key={name} value={name} />
        ))}
      </datalist>
      <button type="submit">Pause kind</button>
    </form>
  );
}

function FindJob({ queue }: { queue: string }) {
  const [id, setId] = useState('');
  return (
    <form
      id="find-form"
      class="inline"
      role="search"
      onSubmit={(event) => {
        event.preventDefault();
        const wanted = id.trim();
        if (wanted) navigate(jobHref(queue, wanted));
      }}
    >
      <label>
        Job id <input id="find-id" name="id" autocomplete="off" spellcheck={false} size={22} required value={id} onInput={(event) => setId(event.currentTarget.value)} />
      </label>
      <button type="submit">Open</button>
    </form>
  );
}

function Tabs({ queue, route }: { queue: QueueOverview; route: Exclude<Route, { view: 'overview' | 'missing' }> }) {
  const session = useSession();
  const caps = session.capabilities;
  const listsWaiting = queue.stats.waitingDepth !== undefined;
  const states = (session.listStates ?? DEFAULT_STATES).filter((state) => state !== 'waiting' || listsWaiting);
  const currentState = route.view === 'list' ? (route.state ?? DEFAULT_STATE) : undefined;
  const pages: [string, string, boolean][] = [
    ['schedules', 'Schedules', Boolean(caps.schedules)],
    ['workers', 'Workers', Boolean(caps.workers)],
    ['batches', 'Batches', Boolean(caps.batches)],
    ['history', 'History', Boolean(caps.history)],
    ['audit', 'Audit', Boolean(caps.audit)],
  ];
  return (
    <nav class="tabs" aria-label="Job states and pages">
      <div id="state-tabs">
        {states.map((state) => {
          const depth = depthText(queue.stats, state);
          const active = state === currentState;
          return (
            <a key={state} href={queueHref(queue.name, state)} class={active ? 'tab active' : 'tab'} data-state={state} aria-current={active ? 'page' : undefined}>
              {state} {depth !== null && <span class="count">{depth}</span>}
            </a>
          );
        })}
      </div>
      <div id="queue-nav">
        {pages
          .filter(([, , shown]) => shown)
          .map(([page, label]) => {
            const active = route.view === page;
            return (
              <a key={page} href={queueHref(queue.name, page)} class={active ? 'tab active' : 'tab'} data-page={page} aria-current={active ? 'page' : undefined}>
                {label}
              </a>
            );
          })}
      </div>
    </nav>
  );
}

export function QueueFrame({ route, overview }: { route: Exclude<Route, { view: 'overview' | 'missing' }>; overview: Overview | undefined }) {
  const session = useSession();
  const operator = useOperator();
  const queue = overview?.queues.find((candidate) => candidate.name === route.queue);
  if (!overview) return <p class="muted">Loading…</p>;
  if (!queue) return <p class="muted">No queue {route.queue} on this dashboard.</p>;
  const canPause = operator && session.capabilities.pause && Boolean(queue.flow);
  return (
    <section id="queue" aria-label={`Queue ${queue.name}`}>
      <div class="queue-head">
        <h2 id="queue-title">{queue.name}</h2>
        <span id="queue-flow">
          <FlowBadges flow={queue.flow} liveWorkers={queue.liveWorkers} />
          {canPause &&
            (queue.flow?.pausedKinds ?? []).map((kind) => (
              <button key={kind} type="button" class="small" data-resume-kind={kind} onClick={() => void act(async () => (await post(queuePath(queue.name, 'resume'), { kind }), `resumed kind ${kind} of ${queue.name}`))}>
                {`Resume ${kind}`}
              </button>
            ))}
        </span>
        <span class="spacer" />
        <QueueActions queue={queue} />
      </div>
      <div id="queue-elsewhere">
        <WaitingElsewhere queue={queue.name} stats={queue.stats} />
      </div>
      <div class="tools">
        <FindJob queue={queue.name} />
        {canPause && <KindPause queue={queue} />}
      </div>
      <Tabs queue={queue} route={route} />
      {route.view === 'list' && <JobList queue={queue} state={route.state ?? DEFAULT_STATE} query={route.query} />}
      {route.view === 'job' && <JobView queue={queue.name} id={route.id} />}
      {route.view === 'schedules' && <SchedulesView queue={queue.name} name={route.name} />}
      {route.view === 'workers' && <WorkersView queue={queue.name} id={route.id} />}
      {route.view === 'batches' && <BatchesView queue={queue.name} />}
      {route.view === 'history' && <HistoryView queue={queue.name} query={route.query} />}
      {route.view === 'audit' && <AuditView queue={queue.name} query={route.query} />}
    </section>
  );
}
