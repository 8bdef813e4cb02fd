// The dashboard page: reads the session, then polls the overview (and the open queue and job)
// on a settable interval that never lets polls pile up.

import { ApiError, get, post, queuePath, setCsrfToken } from './api.js';
import { confirmAction } from './confirm.js';
import { count } from './dom.js';
import { renderJob } from './job-view.js';
import { renderOverview } from './overview.js';
import { createPoller } from './poller.js';
import { renderJobPage, renderQueueHead, renderSchedules } from './queue-view.js';

/** @param {string} id */
const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
/** @param {string} id */
const input = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));

const view = {
  /** @type {any} */ session: null,
  /** @type {string | null} */ queue: null,
  /** @type {string | null} */ jobId: null,
  list: { state: 'failed', offset: 0, limit: 25, kind: '', field: '', value: '' },
};

/**
 * Shows a message (an action's outcome, or why it was refused).
 * @param {string} text
 * @param {'ok' | 'error'} [tone]
 */
function say(text, tone = 'ok') {
  const message = byId('message');
  message.textContent = text;
  message.className = tone;
  message.hidden = false;
}

/** @param {unknown} error */
function sayError(error) {
  say(error instanceof ApiError ? error.message : `the dashboard did not answer (${String(error)})`, 'error');
}

const handlers = {
  /** @param {string} state */
  onState(state) {
    view.list = { ...view.list, state, offset: 0 };
    poller.now();
  },
  /** @param {string} id */
  onOpen(id) {
    view.jobId = id;
    poller.now();
  },
  /** @param {boolean} pause */
  async onPause(pause) {
    await act(() => post(queuePath(/** @type {string} */ (view.queue), pause ? 'pause' : 'resume')), `${pause ? 'paused' : 'resumed'} ${view.queue}`);
  },
  /** @param {string} kind @param {boolean} pause */
  async onPauseKind(kind, pause) {
    const queue = /** @type {string} */ (view.queue);
    await act(() => post(queuePath(queue, pause ? 'pause' : 'resume'), { kind }), `${pause ? 'paused' : 'resumed'} kind ${kind} of ${queue}`);
  },
  /** @param {number} failed */
  async onRedrive(failed) {
    const queue = /** @type {string} */ (view.queue);
    if (!(await confirmAction({ text: `Redrive the ${count(failed)} failed job(s) of ${queue} back to pending, with fresh attempts?`, okLabel: `Redrive ${count(failed)}` }))) return;
    await act(async () => {
      const answer = await post(queuePath(queue, 'redrive-failed'), { expected: failed });
      return `redrove ${count(answer.redriven)} failed job(s) of ${queue}`;
    });
  },
  async onPurge() {
    const queue = /** @type {string} */ (view.queue);
    if (!(await confirmAction({ text: `Purge ${queue}: delete every job, list and counter of it. This cannot be undone.`, okLabel: 'Purge', typed: queue }))) return;
    await act(async () => {
      const answer = await post(queuePath(queue, 'purge'), { confirm: queue });
      view.jobId = null;
      return `purged ${queue}: deleted ${count(answer.deletedKeys)} key(s)`;
    });
  },
  /** @param {string} id */
  async onRetry(id) {
    await act(() => post(queuePath(/** @type {string} */ (view.queue), `jobs/${encodeURIComponent(id)}/retry`)), `redrove job ${id} to pending`);
  },
  /** @param {string} id */
  async onCancel(id) {
    await act(() => post(queuePath(/** @type {string} */ (view.queue), `jobs/${encodeURIComponent(id)}/cancel`)), `cancelled job ${id}`);
  },
  onClose() {
    view.jobId = null;
    byId('job').hidden = true;
  },
};

/**
 * Runs an action, says how it went, and refreshes the page.
 * @param {() => Promise<unknown>} run
 * @param {string} [done]
 */
async function act(run, done) {
  try {
    const outcome = await run();
    say(typeof outcome === 'string' ? outcome : (done ?? 'done'));
  } catch (error) {
    sayError(error);
  }
  poller.now();
}

/** @param {string} queue @param {string} [state] */
function selectQueue(queue, state) {
  if (queue !== view.queue) {
    view.queue = queue;
    view.jobId = null;
    byId('job').hidden = true;
    view.list = { ...view.list, offset: 0, kind: '', field: '', value: '' };
    for (const id of ['filter-kind', 'filter-field', 'filter-value']) input(id).value = '';
  }
  if (state) view.list = { ...view.list, state, offset: 0 };
  byId('queue').hidden = false;
  poller.now();
}

/** One poll: the overview, then the open queue's page and the open job. */
async function tick() {
  const overview = await get('api/overview');
  renderOverview(byId('overview'), overview, { selected: view.queue, onSelect: selectQueue });
  const queue = overview.queues.find((/** @type {any} */ q) => q.name === view.queue);
  if (queue) {
    renderQueueHead(queue, view.list, view.session, handlers);
    const page = await get(queuePath(queue.name, 'jobs'), view.list);
    renderJobPage(page, view.list, queue.stats.nowMs, handlers);
    renderSchedules(view.session.capabilities.schedules ? (await get(queuePath(queue.name, 'schedules'))).schedules : null);
  } else {
    byId('queue').hidden = true;
  }
  if (queue && view.jobId) {
    try {
      renderJob(byId('job'), await get(queuePath(queue.name, `jobs/${encodeURIComponent(view.jobId)}`)), view.session, handlers);
    } catch (error) {
      // Gone, or an id no job can have (a list row shows what a hash's own id field holds).
      if (!(error instanceof ApiError && (error.status === 404 || error.status === 400))) throw error;
      say(error.message, 'error');
      handlers.onClose();
    }
  }
  byId('updated').textContent = `updated ${new Date().toLocaleTimeString()}`;
}

const poller = createPoller(tick, 5_000, sayError);

function wire() {
  byId('find-form').addEventListener('submit', (event) => {
    event.preventDefault();
    view.jobId = input('find-id').value.trim();
    poller.now();
  });
  byId('filter-form').addEventListener('submit', (event) => {
    event.preventDefault();
    view.list = { ...view.list, offset: 0, kind: input('filter-kind').value.trim(), field: input('filter-field').value.trim(), value: input('filter-value').value };
    poller.now();
  });
  byId('kind-pause-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const kind = input('pause-kind').value.trim();
    input('pause-kind').value = '';
    void handlers.onPauseKind(kind, true);
  });
  byId('filter-clear').addEventListener('click', () => {
    for (const id of ['filter-kind', 'filter-field', 'filter-value']) input(id).value = '';
    view.list = { ...view.list, offset: 0, kind: '', field: '', value: '' };
    poller.now();
  });
  byId('page-prev').addEventListener('click', () => {
    const step = view.list.kind || view.list.field ? view.session.scanLimit : view.list.limit;
    view.list = { ...view.list, offset: Math.max(0, view.list.offset - step) };
    poller.now();
  });
  byId('page-next').addEventListener('click', () => {
    const step = view.list.kind || view.list.field ? view.session.scanLimit : view.list.limit;
    view.list = { ...view.list, offset: view.list.offset + step };
    poller.now();
  });
  const select = /** @type {HTMLSelectElement} */ (byId('poll-interval'));
  select.addEventListener('change', () => {
    localStorage.setItem('jobs-dashboard-poll-ms', select.value);
    poller.setInterval(Number(select.value));
  });
  byId('sign-out').addEventListener('click', async () => {
    await post('logout').catch(() => undefined);
    window.location.assign('login');
  });
}

/** The poll interval: `?poll=MS` in the address, else the last one chosen here, else the server's default. */
function initialInterval(/** @type {number} */ fallback) {
  const fromUrl = new URLSearchParams(window.location.search).get('poll');
  const raw = fromUrl ?? localStorage.getItem('jobs-dashboard-poll-ms');
  const ms = raw === null ? fallback : Number(raw);
  return Number.isFinite(ms) && ms >= 0 ? ms : fallback;
}

async function start() {
  wire();
  try {
    view.session = await get('api/session');
  } catch (error) {
    sayError(error);
    return;
  }
  setCsrfToken(view.session.csrfToken);
  byId('role').textContent = view.session.role;
  byId('sign-out').hidden = !view.session.loginRequired;
  const interval = initialInterval(view.session.pollIntervalMs);
  const select = /** @type {HTMLSelectElement} */ (byId('poll-interval'));
  if (![...select.options].some((option) => Number(option.value) === interval)) select.add(new Option(`${interval} ms`, String(interval)));
  select.value = String(interval);
  poller.setInterval(interval);
}

void start();
