// A job's page: why it is not running, its error (code, message, stack, causes), progress,
// attempts, logs, a flow's children, links to its parent and schedule, payload, result, its
// timeline, and the actions its state allows.

import { get, jobPath, ApiError } from './api.ts';
import { ACTION_WORDS, actionsFor, jobAction } from './actions.ts';
import { attemptsText, pretty, time } from './format.ts';
import { Attempts, ChildTree, ErrorBlock, Logs } from './job-sections.tsx';
import { usePolled } from './poll.ts';
import { jobHref, queueHref } from './router.ts';
import { useOperator, useSession } from './state.ts';
import type { JobAnswer } from './types.ts';

/** The id of each action's button on the job's page. */
const ACTION_IDS: Readonly<Record<string, string>> = { retry: 'job-retry', cancel: 'job-cancel', delete: 'job-delete', promote: 'job-promote', priority: 'job-priority' };

function timingName(name: string): string {
  return name.replace(/AtMs$/, '').replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
}

function Links({ queue, fields }: { queue: string; fields: Readonly<Record<string, string>> }) {
  const parent = fields.parent_id;
  const schedule = fields.schedule_id;
  const batch = fields.batch_id;
  if (!parent && !schedule && !batch) return null;
  return (
    <p class="links">
      {parent && (
        <>
          parent{' '}
          <a id="job-parent" class="mono" href={jobHref(queue, parent)}>
            {parent}
          </a>{' '}
        </>
      )}
      {schedule && (
        <>
          schedule{' '}
          <a id="job-schedule" class="mono" href={queueHref(queue, `schedules/${encodeURIComponent(schedule)}`)}>
            {schedule}
          </a>{' '}
        </>
      )}
      {batch && (
        <>
          batch{' '}
          <a id="job-batch" class="mono" href={jobHref(queue, batch)}>
            {batch}
          </a>
        </>
      )}
    </p>
  );
}

/** The progress a handler reported, from the hash's text (JSON) when the detail has no `progress`. */
function storedProgress(text: string | undefined): unknown {
  if (text === undefined || text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function Progress({ progress }: { progress: unknown }) {
  if (progress === undefined || progress === null) return null;
  const percent = typeof progress === 'number' && Number.isFinite(progress) ? Math.max(0, Math.min(100, progress)) : undefined;
  return (
    <>
      <h3>Progress</h3>
      {percent !== undefined ? (
        <p id="job-progress">
          <progress max={100} value={percent} /> {`${percent}%`}
        </p>
      ) : (
        <pre id="job-progress">{pretty(progress)}</pre>
      )}
    </>
  );
}

export function JobView({ queue, id }: { queue: string; id: string }) {
  const session = useSession();
  const operator = useOperator();
  const { data, error } = usePolled(() => get<JobAnswer>(jobPath(queue, id)), [queue, id]);
  if (!data) {
    const gone = error instanceof ApiError && (error.status === 404 || error.status === 400);
    return (
      <section id="job" aria-label="Job">
        <p class="muted" id="job-missing">
          {gone ? (error as ApiError).message : error ? 'The job could not be read.' : 'Loading…'}
        </p>
      </section>
    );
  }
  const job = data.job;
  const caps = session.capabilities;
  const actions = operator ? actionsFor(job.status, caps) : [];
  const priority = Number(job.fields.priority ?? 0) || 0;
  const timing = Object.entries(job.timing ?? {}).filter(([, at]) => typeof at === 'number');
  return (
    <section id="job" aria-label="Job">
      <div class="queue-head">
        <h2>
          Job{' '}
          <span class="mono" id="job-id">
            {job.id}
          </span>
        </h2>
        <span class={`badge status-${job.status}`} id="job-status">
          {job.status}
        </span>
        <span class="spacer" />
        {actions.map((action) => (
          <button key={action} type="button" id={ACTION_IDS[action]} class={action === 'delete' ? 'danger' : ''} onClick={() => void jobAction(queue, job.id, action, priority)}>
            {action === 'cancel' ? 'Cancel job' : ACTION_WORDS[action].label}
          </button>
        ))}
      </div>
      <Links queue={queue} fields={job.fields} />
      <dl class="pairs">
        <dt>kind</dt>
        <dd id="job-kind">{job.kind ?? '?'}</dd>
        <dt>attempts</dt>
        <dd id="job-attempts">{attemptsText(job.attempts, job.maxAttempts, ' of ')}</dd>
        {job.fields.priority !== undefined && (
          <>
            <dt>priority</dt>
            <dd id="job-priority-value">{job.fields.priority}</dd>
          </>
        )}
        {timing.map(([name, at]) => [<dt key={`t-${name}`}>{timingName(name)}</dt>, <dd key={`d-${name}`}>{time(at)}</dd>])}
      </dl>
      {(data.why || data.whyError) && <h3>{data.why?.status === 'processing' ? 'Running' : 'Why it is not running'}</h3>}
      {data.whyError && (
        <p class="muted" id="job-why-error">
          {data.whyError}
        </p>
      )}
      {data.why && (
        <ul class="why" id="job-why">
          {data.why.reasons.map((reason, i) => (
            <li key={i} data-code={reason.code}>
              {reason.text}
            </li>
          ))}
        </ul>
      )}
      {(job.error || job.lastError) && <h3>Last error</h3>}
      {job.error ? (
        <>
          <ErrorBlock error={job.error} id="job-error-shape" />
          {job.lastError && (
            <pre class="error-text" id="job-error" hidden>
              {job.lastError}
            </pre>
          )}
        </>
      ) : (
        job.lastError && (
          <pre class="error-text" id="job-error">
            {job.lastError}
          </pre>
        )
      )}
      <Progress progress={job.progress !== undefined ? job.progress : storedProgress(job.fields.progress)} />
      {caps.attempts && data.attempts && <Attempts attempts={data.attempts} />}
      {caps.logs && data.logs && <Logs logs={data.logs} />}
      {caps.children && <ChildTree queue={queue} id={job.id} />}
      <h3>Payload</h3>
      <pre id="job-payload">{pretty(job.payload)}</pre>
      {job.result !== undefined && (
        <>
          <h3>Result</h3>
          <pre id="job-result">{pretty(job.result)}</pre>
        </>
      )}
      {(data.timeline || data.timelineError) && <h3>Timeline</h3>}
      {data.timelineError && (
        <p class="muted" id="job-timeline-error">
          {data.timelineError}
        </p>
      )}
      {data.timeline && (
        <ol class="timeline" id="job-timeline">
          {data.timeline.map((entry, i) => (
            <li key={i}>
              <span class="mono">{time(entry.atMs)}</span> <strong>{entry.event}</strong>
              {entry.detail ? ` ${entry.detail}` : ''}
            </li>
          ))}
        </ol>
      )}
      <details>
        <summary>Every field of its hash</summary>
        <pre>{pretty(job.fields)}</pre>
      </details>
    </section>
  );
}
