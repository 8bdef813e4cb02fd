// The parts of a job's page that come with capabilities: its attempts, its log lines, a flow's
// tree of children, and the one error format with its stack and causes.

import { useState } from 'preact/hooks';
import { get, jobPath } from './api.ts';
import { duration, time } from './format.ts';
import { usePolled } from './poll.ts';
import { jobHref } from './router.ts';
import type { ChildInfo, ErrorShape, JobAnswer } from './types.ts';

/** An error: its code, message, stack, and each cause after it. */
export function ErrorBlock({ error, id }: { error: ErrorShape; id?: string }) {
  const chain: ErrorShape[] = [];
  for (let at: ErrorShape | undefined = error; at && chain.length < 10; at = at.cause) chain.push(at);
  return (
    <div class="error-block" id={id}>
      {chain.map((item, i) => (
        <div key={i} class="error-item" data-error-depth={String(i)}>
          {i > 0 && <p class="muted">caused by</p>}
          <p>
            {item.code && (
              <span class="badge code" data-error-code={item.code}>
                {item.code}
              </span>
            )}{' '}
            <span class="error-text error-message">{item.message}</span>
          </p>
          {item.stack && <pre class="stack">{item.stack}</pre>}
        </div>
      ))}
    </div>
  );
}

export function Attempts({ attempts }: { attempts: NonNullable<JobAnswer['attempts']> }) {
  return (
    <>
      <h3>Attempts</h3>
      {attempts.trimmed > 0 && <p class="muted" id="job-attempts-trimmed">{`${attempts.trimmed} earlier attempt(s) not kept`}</p>}
      <div class="table-wrap">
        <table id="job-attempt-list">
          <thead>
            <tr>
              <th>#</th>
              <th>Outcome</th>
              <th>Worker</th>
              <th class="wide-only">Started</th>
              <th>Took</th>
              <th>Error</th>
            </tr>
          </thead>
          <tbody>
            {attempts.entries.map((entry, i) => (
              <tr key={i} data-attempt={String(entry.attempt)}>
                <td>{entry.attempt}</td>
                <td>
                  <span class={`badge outcome-${entry.outcome}`}>{entry.outcome}</span>
                </td>
                <td class="mono">{entry.workerId ?? '–'}</td>
                <td class="mono wide-only">{time(entry.claimedAtMs)}</td>
                <td>{duration(entry.durationMs)}</td>
                <td>{entry.error ? <ErrorBlock error={entry.error} /> : '–'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

export function Logs({ logs }: { logs: NonNullable<JobAnswer['logs']> }) {
  return (
    <>
      <h3>Logs</h3>
      {logs.trimmed > 0 && <p class="muted" id="job-logs-trimmed">{`${logs.trimmed} earlier line(s) not kept`}</p>}
      {logs.lines.length === 0 ? (
        <p class="muted">No log lines.</p>
      ) : (
        <ol id="job-logs" class="logs">
          {logs.lines.map((line, i) => (
            <li key={i} data-attempt={line.attempt === undefined ? undefined : String(line.attempt)}>
              <span class="mono muted">{time(line.atMs)}</span> {line.attempt !== undefined && <span class="muted">#{line.attempt}</span>} <span class="log-line">{line.line}</span>
            </li>
          ))}
        </ol>
      )}
    </>
  );
}

function ChildRow({ queue, child, depth }: { queue: string; child: ChildInfo; depth: number }) {
  const [open, setOpen] = useState(false);
  return (
    <li data-child={child.id}>
      {depth < 32 && (
        <button type="button" class="link toggle" aria-expanded={open} aria-label={`Children of ${child.id}`} onClick={() => setOpen(!open)}>
          {open ? '▾' : '▸'}
        </button>
      )}{' '}
      <a class="mono" href={jobHref(queue, child.id)}>
        {child.id}
      </a>{' '}
      <span class="muted">{child.kind}</span> <span class={`badge status-${child.status}`}>{child.status}</span>
      {child.error && <span class="error-text child-error"> {child.error}</span>}
      {open && <ChildTree queue={queue} id={child.id} depth={depth + 1} />}
    </li>
  );
}

/** A flow's children, each openable to its own children. */
export function ChildTree({ queue, id, depth = 0 }: { queue: string; id: string; depth?: number }) {
  const { data } = usePolled(() => get<{ children: ChildInfo[] }>(jobPath(queue, id, 'children')), [queue, id]);
  if (!data) return null;
  if (data.children.length === 0) return depth === 0 ? null : <p class="muted">No children.</p>;
  return (
    <>
      {depth === 0 && <h3>Children</h3>}
      <ul class="tree" id={depth === 0 ? 'job-children' : undefined}>
        {data.children.map((child) => (
          <ChildRow key={child.id} queue={queue} child={child} depth={depth} />
        ))}
      </ul>
    </>
  );
}
