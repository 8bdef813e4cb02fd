// The workspace's frame: the top bar (role, refresh interval, sign out), the sidebar of queues,
// the message line, and the view the URL names.

import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, post, BASE } from './api.ts';
import { ConfirmDialog } from './confirm.tsx';
import { count } from './format.ts';
import { OverviewView } from './overview.tsx';
import { onPolled, setPollInterval, usePolled } from './poll.ts';
import { QueueFrame } from './queue-frame.tsx';
import { onLinkClick, overviewHref, queueHref, useRoute } from './router.ts';
import { messages, sayError, SessionContext, type Message } from './state.ts';
import type { Overview, Session } from './types.ts';

const INTERVALS: readonly [number, string][] = [
  [1000, '1 s'],
  [2000, '2 s'],
  [5000, '5 s'],
  [10000, '10 s'],
  [30000, '30 s'],
  [0, 'never'],
];
const POLL_KEY = 'jobs-dashboard-poll-ms';

/** The poll interval: `?poll=MS` in the address, else the last one chosen here, else the server's default. */
function initialInterval(fallback: number): number {
  const fromUrl = new URLSearchParams(window.location.search).get('poll');
  const raw = fromUrl ?? localStorage.getItem(POLL_KEY);
  const ms = raw === null ? fallback : Number(raw);
  return Number.isFinite(ms) && ms >= 0 ? ms : fallback;
}

function MessageLine() {
  const [message, setMessage] = useState<Message | null>(messages.get());
  useEffect(() => messages.subscribe(setMessage), []);
  if (!message) return <p id="message" role="status" aria-live="polite" hidden />;
  return (
    <div class={`message-line ${message.tone}`}>
      <p id="message" role="status" aria-live="polite" class={message.tone}>
        {message.text}
      </p>
      <button type="button" class="link dismiss" aria-label="Dismiss" onClick={() => messages.set(null)}>
        ×
      </button>
    </div>
  );
}

function PollControl({ session }: { session: Session }) {
  const [interval, setInterval] = useState(() => initialInterval(session.pollIntervalMs));
  const [updated, setUpdated] = useState('');
  useEffect(() => setPollInterval(interval), [interval]);
  useEffect(
    () =>
      onPolled((atMs, error) => {
        setUpdated(error ? 'update failed' : `updated ${new Date(atMs).toLocaleTimeString()}`);
        // A view shows its own missing job or bad id; the message line keeps the last action's outcome.
        if (error && !(error instanceof ApiError && (error.status === 404 || error.status === 400))) sayError(error);
      }),
    [],
  );
  const options = INTERVALS.some(([ms]) => ms === interval) ? INTERVALS : [...INTERVALS, [interval, `${interval} ms`] as [number, string]];
  return (
    <>
      <label class="poll">
        <span class="wide-only">Refresh every </span>
        <select
          id="poll-interval"
          aria-label="Refresh every"
          value={String(interval)}
          onChange={(event) => {
            const ms = Number(event.currentTarget.value);
            localStorage.setItem(POLL_KEY, String(ms));
            setInterval(ms);
          }}
        >
          {options.map(([ms, label]) => (
            <option key={ms} value={String(ms)}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <span id="updated" class="muted wide-only">
        {updated}
      </span>
    </>
  );
}

function Sidebar({ overview, current }: { overview: Overview | undefined; current: string | undefined }) {
  return (
    <nav class="sidebar" aria-label="Queues">
      <a href={overviewHref()} class={current === undefined ? 'side-link active' : 'side-link'} aria-current={current === undefined ? 'page' : undefined}>
        Overview
      </a>
      {(overview?.queues ?? []).map((queue) => (
        <a
          key={queue.name}
          href={queueHref(queue.name)}
          data-side-queue={queue.name}
          class={queue.name === current ? 'side-link active' : 'side-link'}
          aria-current={queue.name === current ? 'page' : undefined}
        >
          <span class="side-name">{queue.name}</span>
          {queue.stats.failedDepth > 0 && <span class="badge status-failed">{count(queue.stats.failedDepth)}</span>}
        </a>
      ))}
    </nav>
  );
}

/** The page once the session is read (or a bare frame with the message line when it could not be). */
export function App({ session }: { session: Session | null }) {
  const route = useRoute();
  if (!session) {
    return (
      <main>
        <MessageLine />
      </main>
    );
  }
  return (
    <SessionContext.Provider value={session}>
      <Workspace session={session} route={route} />
    </SessionContext.Provider>
  );
}

function Workspace({ session, route }: { session: Session; route: ReturnType<typeof useRoute> }) {
  const overview = usePolled(() => get<Overview>('api/overview'), []);
  const queueName = 'queue' in route ? route.queue : undefined;
  useEffect(() => {
    document.title = queueName ? `${queueName} · @jobs dashboard` : '@jobs dashboard';
  }, [queueName]);
  const signOut = async (): Promise<void> => {
    await post('logout').catch(() => undefined);
    window.location.assign(`${BASE}/login`);
  };
  return (
    <div class="shell" onClick={onLinkClick}>
      <header class="bar">
        <h1>
          <a href={overviewHref()}>@jobs</a>
        </h1>
        <span id="role" class="badge">
          {session.role}
        </span>
        {session.label && (
          <span id="session-label" class="muted wide-only">
            {session.label}
          </span>
        )}
        <span class="spacer" />
        <PollControl session={session} />
        {session.loginRequired && (
          <button id="sign-out" type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        )}
      </header>
      <div class="layout">
        <Sidebar overview={overview.data} current={queueName} />
        <main>
          <MessageLine />
          {route.view === 'overview' && <OverviewView overview={overview.data} error={overview.error} />}
          {route.view === 'missing' && <p class="muted">No page at {route.path}.</p>}
          {queueName !== undefined && route.view !== 'overview' && route.view !== 'missing' && <QueueFrame route={route} overview={overview.data} />}
        </main>
      </div>
      <ConfirmDialog />
    </div>
  );
}
