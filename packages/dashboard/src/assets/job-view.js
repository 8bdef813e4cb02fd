// A job's detail: why it is not running (when the source can say), payload, result, last error,
// attempts, timing, its timeline when the queues keep an event log, and the actions its state allows.

import { attemptsText, el, replace, time } from './dom.js';

/** @param {unknown} value */
function pretty(value) {
  if (value === undefined) return '–';
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return '(too deeply nested to show)';
  }
}

/**
 * @param {HTMLElement} container
 * @param {{ job: any, timeline?: { atMs: number | null, event: string, detail?: string }[], timelineError?: string, why?: { status: string, reasons: { code: string, text: string }[] }, whyError?: string }} answer
 * @param {{ role: string }} session
 * @param {{ onRetry: (id: string) => void, onCancel: (id: string) => void, onClose: () => void }} on
 */
export function renderJob(container, answer, session, on) {
  const job = answer.job;
  const operator = session.role === 'operator';
  const timing = Object.entries(job.timing ?? {}).filter(([, at]) => typeof at === 'number');
  replace(
    container,
    el(
      'div',
      { class: 'queue-head' },
      el('h2', {}, 'Job ', el('span', { class: 'mono', id: 'job-id' }, job.id)),
      el('span', { class: `badge status-${job.status}`, id: 'job-status' }, job.status),
      el('span', { class: 'spacer' }),
      operator && job.status === 'failed' ? el('button', { type: 'button', id: 'job-retry', onclick: () => on.onRetry(job.id) }, 'Retry') : null,
      operator && (job.status === 'pending' || job.status === 'delayed') ? el('button', { type: 'button', id: 'job-cancel', onclick: () => on.onCancel(job.id) }, 'Cancel job') : null,
      el('button', { type: 'button', onclick: on.onClose }, 'Close'),
    ),
    el(
      'dl',
      { class: 'pairs' },
      el('dt', {}, 'kind'),
      el('dd', {}, job.kind ?? '?'),
      el('dt', {}, 'attempts'),
      el('dd', { id: 'job-attempts' }, attemptsText(job.attempts, job.maxAttempts, ' of ')),
      ...timing.flatMap(([name, at]) => [el('dt', {}, name.replace(/AtMs$/, '').replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)), el('dd', {}, time(/** @type {number} */ (at)))]),
    ),
    answer.why || answer.whyError ? el('h3', {}, answer.why?.status === 'processing' ? 'Running' : 'Why it is not running') : null,
    answer.whyError ? el('p', { class: 'muted', id: 'job-why-error' }, answer.whyError) : null,
    answer.why ? el('ul', { class: 'why', id: 'job-why' }, ...answer.why.reasons.map((reason) => el('li', { 'data-code': reason.code }, reason.text))) : null,
    job.lastError ? el('h3', {}, 'Last error') : null,
    job.lastError ? el('pre', { class: 'error-text', id: 'job-error' }, job.lastError) : null,
    el('h3', {}, 'Payload'),
    el('pre', { id: 'job-payload' }, pretty(job.payload)),
    job.result !== undefined ? el('h3', {}, 'Result') : null,
    job.result !== undefined ? el('pre', { id: 'job-result' }, pretty(job.result)) : null,
    answer.timeline || answer.timelineError ? el('h3', {}, 'Timeline') : null,
    answer.timelineError ? el('p', { class: 'muted', id: 'job-timeline-error' }, answer.timelineError) : null,
    answer.timeline
      ? el('ol', { class: 'timeline' }, ...answer.timeline.map((entry) => el('li', {}, el('span', { class: 'mono' }, time(entry.atMs)), ' ', el('strong', {}, entry.event), entry.detail ? ` ${entry.detail}` : '')))
      : null,
    el('details', {}, el('summary', {}, 'Every field of its hash'), el('pre', {}, pretty(job.fields))),
  );
  container.hidden = false;
}
