// One queue: its state tabs, its actions, a page of a state's jobs and the pager.

import { attemptsText, count, duration, el, replace, time } from './dom.js';
import { flowBadges, waitingElsewhere } from './overview.js';

// `waiting`: every job not yet started (other priorities, parked kinds, groups), when the
// source's stats count them (`waitingDepth`).
export const STATES = ['pending', 'waiting', 'processing', 'delayed', 'completed', 'failed'];

/** @param {string} id */
const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * @typedef {{ state: string, offset: number, limit: number, kind: string, field: string, value: string }} ListQuery
 * @typedef {{
 *   onState: (state: string) => void,
 *   onOpen: (id: string) => void,
 *   onPause: (pause: boolean) => void,
 *   onPauseKind: (kind: string, pause: boolean) => void,
 *   onRedrive: (failed: number) => void,
 *   onPurge: () => void,
 * }} QueueHandlers
 */

/**
 * A state's depth for its tab. The waiting jobs are not counted when too many groups wait: then
 * at least those outside the groups' lists, with a plus.
 * @param {any} stats
 * @param {string} state
 */
function depthText(stats, state) {
  const depth = stats[`${state}Depth`];
  if (depth !== null) return count(depth);
  return `${count(stats.pendingDepth + stats.prioritizedDepth + stats.parkedDepth)}+`;
}

/**
 * Draws the queue's title, tabs and actions from its overview entry.
 * @param {{ name: string, stats: any, flow?: any, liveWorkers?: number }} queue
 * @param {ListQuery} query
 * @param {{ role: string, capabilities: { pause: boolean } }} session
 * @param {QueueHandlers} on
 */
export function renderQueueHead(queue, query, session, on) {
  byId('queue-title').textContent = queue.name;
  const operator = session.role === 'operator';
  const canPause = operator && session.capabilities.pause && Boolean(queue.flow);
  replace(
    byId('queue-flow'),
    ...flowBadges(queue.flow, queue.liveWorkers),
    ...(canPause ? queue.flow.pausedKinds ?? [] : []).map((/** @type {string} */ kind) =>
      el('button', { type: 'button', class: 'small', 'data-resume-kind': kind, onclick: () => on.onPauseKind(kind, false) }, `Resume ${kind}`),
    ),
  );
  const listsWaiting = queue.stats.waitingDepth !== undefined;
  replace(byId('queue-elsewhere'), waitingElsewhere(queue.stats, listsWaiting ? () => on.onState('waiting') : undefined));
  byId('kind-pause-form').hidden = !canPause;
  replace(byId('known-kinds'), ...(queue.flow?.kinds ?? []).map((/** @type {string} */ kind) => el('option', { value: kind })));
  replace(
    byId('state-tabs'),
    ...STATES.filter((state) => state !== 'waiting' || listsWaiting).map((state) =>
      el(
        'button',
        { type: 'button', class: state === query.state ? 'tab active' : 'tab', 'data-state': state, 'aria-pressed': String(state === query.state), onclick: () => on.onState(state) },
        `${state} `,
        el('span', { class: 'count' }, depthText(queue.stats, state)),
      ),
    ),
  );
  const failed = queue.stats.failedDepth;
  replace(
    byId('queue-actions'),
    canPause
      ? el('button', { type: 'button', id: 'pause-toggle', onclick: () => on.onPause(!queue.flow.paused) }, queue.flow.paused ? 'Resume' : 'Pause')
      : null,
    operator ? el('button', { type: 'button', id: 'redrive-all', disabled: failed === 0, onclick: () => on.onRedrive(failed) }, `Redrive all failed (${count(failed)})`) : null,
    operator ? el('button', { type: 'button', id: 'purge', class: 'danger', onclick: () => on.onPurge() }, 'Purge…') : null,
    operator ? null : el('span', { class: 'badge' }, 'read-only'),
  );
}

/**
 * How long ago a job was enqueued, by the Redis clock; a dash when its hash holds no time.
 * @param {unknown} enqueuedAtMs
 * @param {number} nowMs
 */
function enqueuedText(enqueuedAtMs, nowMs) {
  if (typeof enqueuedAtMs !== 'number' || enqueuedAtMs <= 0) return '–';
  const age = nowMs - enqueuedAtMs;
  return age >= 0 ? `${duration(age)} ago` : `in ${duration(-age)}`;
}

/**
 * Draws a page of jobs and says how much of the list it read.
 * @param {any} page  the API's answer
 * @param {ListQuery} query
 * @param {number} nowMs
 * @param {QueueHandlers} on
 */
export function renderJobPage(page, query, nowMs, on) {
  const rows = page.jobs.map((/** @type {any} */ job) =>
    el(
      'tr',
      { 'data-id': job.id },
      el('td', {}, el('button', { type: 'button', class: 'link mono', onclick: () => on.onOpen(job.id) }, job.id)),
      el('td', {}, job.kind ?? '?'),
      el('td', {}, attemptsText(job.attempts, job.maxAttempts)),
      el('td', { title: time(job.enqueuedAtMs) }, enqueuedText(job.enqueuedAtMs, nowMs)),
      el('td', { class: job.lastError ? 'error-text' : 'muted' }, job.lastError || job.payloadPreview),
    ),
  );
  if (rows.length === 0) rows.push(el('tr', {}, el('td', { colspan: 5, class: 'muted' }, page.filtered ? 'No match in the entries scanned.' : `No ${query.state} jobs here.`)));
  replace(/** @type {HTMLElement} */ (document.querySelector('#jobs tbody')), ...rows);
  const end = page.offset + page.scanned;
  byId('scan-note').textContent = page.filtered
    ? `Filtered: ${count(page.jobs.length)} match(es) among entries ${count(page.offset + 1)}–${count(end)}${page.depth === null ? '' : ` of ${count(page.depth)}`}. ` +
      `A search reads at most ${count(page.scanLimit)} entries per page; "Next" scans the next ${count(page.scanLimit)}.`
    : '';
  byId('page-info').textContent =
    page.depth === null
      ? page.scanned === 0 ? '' : `${count(page.offset + 1)}–${count(end)}`
      : page.depth === 0 ? '' : `${count(Math.min(page.offset + 1, page.depth))}–${count(Math.min(end, page.depth))} of ${count(page.depth)}`;
  /** @type {HTMLButtonElement} */ (byId('page-prev')).disabled = page.offset === 0;
  /** @type {HTMLButtonElement} */ (byId('page-next')).disabled = page.nextOffset === null;
}

/**
 * Draws the queue's schedules (when the queues have them).
 * @param {{ name: string, kind?: string, every: string, nextRunAtMs: number | null, status?: string }[] | null} schedules
 */
export function renderSchedules(schedules) {
  const section = byId('schedules');
  section.hidden = schedules === null;
  if (schedules === null) return;
  replace(
    section,
    el('h3', {}, 'Schedules'),
    schedules.length === 0
      ? el('p', { class: 'muted' }, 'No schedules.')
      : el(
          'table',
          {},
          el('thead', {}, el('tr', {}, el('th', {}, 'Name'), el('th', {}, 'Kind'), el('th', {}, 'Every'), el('th', {}, 'Status'), el('th', {}, 'Next run'))),
          el(
            'tbody',
            {},
            ...schedules.map((s) =>
              el(
                'tr',
                { 'data-schedule': s.name },
                el('td', {}, s.name),
                el('td', {}, s.kind ?? '–'),
                el('td', {}, s.every),
                el('td', {}, s.status ?? '–'),
                el('td', { 'data-next-run': s.nextRunAtMs ?? '' }, time(s.nextRunAtMs)),
              ),
            ),
          ),
        ),
  );
}
