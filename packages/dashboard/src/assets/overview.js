// The overview: a card per queue with its depths, the oldest pending job's age, its paused
// state and limits when the queues have them, and a chart of its rates.

import { rateChart, SERIES } from './chart.js';
import { count, duration, el, replace } from './dom.js';

const DEPTHS = [
  ['pending', 'pendingDepth'],
  ['processing', 'processingDepth'],
  ['delayed', 'delayedDepth'],
  ['completed', 'completedDepth'],
  ['failed', 'failedDepth'],
];

/**
 * The queue's paused state, its paused kinds and its limits, as badges; with `liveWorkers` (when
 * the source reads the worker registry) 0, "no live worker" in place of "running".
 * @param {{ paused: boolean, pausedKinds?: string[], limits?: Record<string, unknown> } | undefined} flow
 * @param {number | undefined} [liveWorkers]
 */
export function flowBadges(flow, liveWorkers) {
  const noWorker = liveWorkers === 0;
  const badges = [];
  if (flow && (flow.paused || !noWorker)) badges.push(el('span', { class: flow.paused ? 'badge paused' : 'badge running', 'data-flow': flow.paused ? 'paused' : 'running' }, flow.paused ? 'paused' : 'running'));
  if (noWorker) badges.push(el('span', { class: 'badge no-worker', 'data-workers': 'none', title: 'no worker of this queue has sent a heartbeat within its TTL' }, 'no live worker'));
  for (const kind of flow?.pausedKinds ?? []) badges.push(el('span', { class: 'badge paused', 'data-paused-kind': kind }, `${kind} paused`));
  for (const [name, value] of Object.entries(flow?.limits ?? {})) badges.push(el('span', { class: 'badge', 'data-limit': name }, `${name}: ${value ?? '–'}`));
  return badges;
}

/**
 * Jobs waiting outside the pending list (at other priorities, set aside while their kind is
 * paused or limited, or behind their group's turn), or null when there are none. With `onOpen`
 * the note is a link to the list of every waiting job.
 * @param {{ prioritizedDepth?: number, parkedDepth?: number, groupedDepth?: number | null, groupsWaiting?: number }} stats
 * @param {(() => void) | undefined} [onOpen]
 */
export function waitingElsewhere(stats, onOpen) {
  const parts = [];
  if (stats.prioritizedDepth) parts.push(`+${count(stats.prioritizedDepth)} waiting at other priorities`);
  if (stats.parkedDepth) parts.push(`${count(stats.parkedDepth)} set aside while their kind is paused or limited`);
  if (stats.groupedDepth) parts.push(`${count(stats.groupedDepth)} waiting for their group's turn`);
  // Too many groups to count their jobs on every poll: the groups, then.
  if (stats.groupedDepth === null) parts.push(`jobs of ${count(stats.groupsWaiting)} group${stats.groupsWaiting === 1 ? '' : 's'} waiting for their turn`);
  if (parts.length === 0) return null;
  const text = parts.join(' · ');
  return el('p', { class: 'muted note', 'data-stat': 'elsewhere' }, onOpen ? el('button', { type: 'button', class: 'link', onclick: onOpen }, text) : text);
}

/**
 * @param {HTMLElement} container
 * @param {{ queues: { name: string, stats: any, flow?: any, liveWorkers?: number, rates: any[] }[] }} overview
 * @param {{ selected: string | null, onSelect: (queue: string, state?: string) => void }} options
 */
export function renderOverview(container, overview, options) {
  if (overview.queues.length === 0) {
    replace(container, el('p', { class: 'muted' }, 'No queues yet: the dashboard shows every queue the daemon serves.'));
    return;
  }
  const legend = el('p', { class: 'legend' }, ...SERIES.map((series) => el('span', { class: `key ${series.className}` }, series.label)));
  const cards = overview.queues.map(({ name, stats, flow, liveWorkers, rates }) => {
    const depths = el(
      'dl',
      { class: 'depths' },
      ...DEPTHS.flatMap(([state, field]) => [
        el('div', { 'data-stat': state }, el('dt', {}, state), el('dd', {}, el('button', { type: 'button', class: 'link', onclick: () => options.onSelect(name, state) }, count(stats[field])))),
      ]),
      el('div', { 'data-stat': 'oldest' }, el('dt', {}, 'oldest pending'), el('dd', {}, duration(stats.oldestPendingAgeMs))),
    );
    return el(
      'article',
      { class: name === options.selected ? 'card queue-card selected' : 'card queue-card', 'data-queue': name },
      el('h2', {}, el('button', { type: 'button', class: 'link', onclick: () => options.onSelect(name) }, name), ' ', ...flowBadges(flow, liveWorkers)),
      depths,
      waitingElsewhere(stats, stats.waitingDepth === undefined ? undefined : () => options.onSelect(name, 'waiting')),
      rateChart(rates, `${name}: jobs per second`),
    );
  });
  replace(container, legend, el('div', { class: 'cards' }, ...cards));
}
