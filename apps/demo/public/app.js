// The demo page. Everything from the server is put on the page with textContent, never as
// HTML, so a payload holding <script> shows as text.
'use strict';

const $ = (selector) => document.querySelector(selector);
const STATES = ['pending', 'processing', 'delayed', 'completed', 'failed'];
const STAT_LABELS = [
  ['workers_running', 'workers running'], ['pending_depth', 'pending'], ['processing_depth', 'processing'],
  ['delayed_depth', 'delayed'], ['enqueued_total', 'enqueued'], ['completed_total', 'completed'],
  ['failed_total', 'failed'], ['retried_total', 'retried'], ['reclaimed_total', 'reclaimed'],
  ['worker_processed_total', 'worker processed'], ['worker_crashes_total', 'worker crashes'],
  ['visibility_ms', 'visibility timeout (ms)'], ['work_latency_ms', 'work latency (ms)'],
  ['fail_rate', 'failure rate'], ['hang_rate', 'hang rate'], ['oldest_pending_age_ms', 'oldest pending (ms)'],
  ['prioritized_depth', 'waiting at other priorities'],
];
// The page's priority names for the priorities the server maps them to.
const PRIORITY_NAMES = { '-10': 'low', 10: 'high' };
const samples = [];
let selectedId = null;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function setStatus(text, isError = false) {
  const status = $('#status');
  status.textContent = text;
  status.classList.toggle('error', isError);
}

async function api(method, path, fields) {
  const init = { method, headers: { accept: 'application/json' } };
  if (fields) init.body = new URLSearchParams(fields);
  const response = await fetch(path, init);
  const body = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) {
    const error = new Error(body.error || `HTTP ${response.status}`);
    error.body = body;
    throw error;
  }
  return body;
}

function formFields(form) {
  return Object.fromEntries(new FormData(form).entries());
}

function renderStats(stats) {
  const list = $('#stats');
  list.replaceChildren(
    ...STAT_LABELS.map(([key, label]) => {
      const row = el('div');
      row.append(el('dt', '', label), el('dd', '', String(stats[key] ?? '-')));
      row.dataset.stat = key;
      return row;
    }),
  );
  $('#auto-reclaim').checked = Boolean(stats.auto_reclaim);
  renderPause(stats);
  samples.push({ at: Date.now(), completed: stats.completed_total, depth: stats.pending_depth + stats.processing_depth });
  if (samples.length > 76) samples.shift();
  drawChart();
}

function renderPause(stats) {
  const state = $('#pause-state');
  state.textContent = stats.paused ? 'paused' : 'running';
  state.className = `badge ${stats.paused ? 'paused' : 'running'}`;
  const button = $('#pause-btn');
  button.textContent = stats.paused ? 'Resume queue' : 'Pause queue';
  button.dataset.paused = String(Boolean(stats.paused));
}

function drawChart() {
  const canvas = $('#chart');
  const ctx = canvas.getContext('2d');
  const { width, height } = canvas;
  ctx.clearRect(0, 0, width, height);
  if (samples.length < 2) return;
  const rates = samples.slice(1).map((s, i) => Math.max(0, (s.completed - samples[i].completed) / ((s.at - samples[i].at) / 1000)));
  const depths = samples.slice(1).map((s) => s.depth);
  const line = (values, color) => {
    const max = Math.max(1, ...values);
    ctx.strokeStyle = color;
    ctx.lineWidth = 2;
    ctx.beginPath();
    values.forEach((value, i) => {
      const x = (i / Math.max(1, values.length - 1)) * (width - 10) + 5;
      const y = height - 10 - (value / max) * (height - 30);
      if (i === 0) ctx.moveTo(x, y);
      else ctx.lineTo(x, y);
    });
    ctx.stroke();
    return max;
  };
  const maxRate = line(rates, '#27ae60');
  const maxDepth = line(depths, '#2f6fde');
  ctx.fillStyle = '#5b6472';
  ctx.font = '12px system-ui';
  ctx.fillText(`max ${maxRate.toFixed(1)} jobs/s, depth ${maxDepth}`, 8, 14);
}

function jobRow(job, state) {
  const row = el('li');
  row.dataset.id = job.id;
  row.append(el('span', 'id', job.id), el('span', `badge ${job.status}`, job.status), el('span', 'kind', job.kind || '?'), el('span', 'attempts', `attempts ${job.attempts}`));
  if (job.priority) {
    const priority = el('span', 'badge priority', `${PRIORITY_NAMES[job.priority] || 'priority'} ${job.priority > 0 ? '+' : ''}${job.priority}`);
    priority.dataset.priority = String(job.priority);
    row.append(priority);
  }
  const detail = job.last_error ? `error: ${job.last_error}` : job.result !== null && job.result !== undefined ? `result: ${JSON.stringify(job.result)}` : JSON.stringify(job.payload);
  row.append(el('span', 'detail', detail));
  if (state === 'failed') {
    const retry = el('button', 'small retry', 'Retry');
    retry.type = 'button';
    retry.addEventListener('click', (event) => {
      event.stopPropagation();
      act(() => api('POST', `/jobs/${encodeURIComponent(job.id)}/retry`, {}), `retried ${job.id}`);
    });
    row.append(retry);
  }
  row.addEventListener('click', () => showJob(job.id));
  return row;
}

function renderJobs(jobs, stats) {
  for (const state of STATES) {
    const list = $(`#list-${state}`);
    list.replaceChildren(...(jobs[state] || []).map((job) => jobRow(job, state)));
  }
  const depth = { pending: stats.pending_depth, processing: stats.processing_depth, delayed: stats.delayed_depth };
  for (const [state, count] of Object.entries(depth)) {
    const shown = (jobs[state] || []).length;
    $(`#count-${state}`).textContent = count > shown ? `(${count}, first ${shown} shown)` : `(${count})`;
  }
  $('#count-elsewhere').textContent = stats.prioritized_depth > 0 ? `+ ${stats.prioritized_depth} waiting at other priorities (started in priority order)` : '';
}

async function showJob(id) {
  selectedId = id;
  try {
    const { job } = await api('GET', `/jobs/${encodeURIComponent(id)}`);
    const body = $('#job-detail tbody');
    body.replaceChildren(
      ...Object.keys(job.fields).sort().map((field) => {
        const row = el('tr');
        row.append(el('th', '', field), el('td', '', job.fields[field]));
        return row;
      }),
    );
    $('#job-detail').hidden = false;
    $('#detail-hint').textContent = `Job ${id}`;
  } catch (error) {
    $('#job-detail').hidden = true;
    $('#detail-hint').textContent = error.message;
  }
}

async function refresh() {
  try {
    const [stats, jobs] = await Promise.all([api('GET', '/stats'), api('GET', '/jobs')]);
    renderStats(stats);
    renderJobs(jobs, stats);
    if (selectedId) await showJob(selectedId);
  } catch (error) {
    setStatus(`refresh failed: ${error.message}`, true);
  }
}

async function act(run, describe) {
  try {
    const result = await run();
    setStatus(typeof describe === 'function' ? describe(result) : describe);
  } catch (error) {
    setStatus(error.message, true);
  }
  await refresh();
}

function showIssues(error) {
  const box = $('#custom-errors');
  const issues = (error.body && error.body.issues) || [];
  box.replaceChildren(el('strong', '', error.message));
  for (const issue of issues) box.append(el('div', 'issue', `${issue.pointer || '/'}: ${issue.message}`));
  box.hidden = false;
}

document.addEventListener('DOMContentLoaded', () => {
  $('#enqueue-form').addEventListener('submit', (event) => {
    event.preventDefault();
    act(() => api('POST', '/enqueue', formFields(event.target)), (r) => `enqueued ${r.enqueued.length} job(s)`);
  });
  $('#custom-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    $('#custom-errors').hidden = true;
    try {
      const result = await api('POST', '/enqueue/custom', formFields(event.target));
      setStatus(`enqueued ${result.id}`);
    } catch (error) {
      showIssues(error);
      setStatus('the payload was refused: nothing was enqueued', true);
    }
    await refresh();
  });
  $('#workers-form').addEventListener('submit', (event) => {
    event.preventDefault();
    act(() => api('POST', '/workers/start', formFields(event.target)), (s) => `${s.worker_pool_size} worker(s) running the pool`);
  });
  $('#stop-btn').addEventListener('click', () => act(() => api('POST', '/workers/stop', {}), 'workers stopped'));
  $('#reclaim-btn').addEventListener('click', () => act(() => api('POST', '/reclaim', {}), (r) => `reclaim sweep returned ${r.reclaimed.length} job(s) to pending`));
  $('#auto-reclaim').addEventListener('change', (event) =>
    act(() => api('POST', '/reclaim/auto', { enabled: String(event.target.checked) }), event.target.checked ? 'reclaiming every second' : 'automatic reclaim off'),
  );
  $('#pause-btn').addEventListener('click', (event) => {
    const resume = event.target.dataset.paused === 'true';
    act(() => api('POST', resume ? '/queue/resume' : '/queue/pause', {}), resume ? 'queue resumed: workers start jobs again' : 'queue paused: workers start no new job');
  });
  $('#reset-btn').addEventListener('click', () => act(() => api('POST', '/reset', {}), 'queue reset'));
  refresh();
  setInterval(refresh, 800);
});
