// A queue's audit trail: who (role and token label) did what, when, to how many jobs; newest
// first, paged with the server's cursor.

import { get, queryString, queuePath } from './api.ts';
import { count, time } from './format.ts';
import { usePolled } from './poll.ts';
import { jobHref, queueHref } from './router.ts';
import type { AuditEntry } from './types.ts';

function Target({ queue, target }: { queue: string; target: AuditEntry['target'] }) {
  const parts = [];
  if (target.id) parts.push(<a key="id" class="mono" href={jobHref(queue, target.id)}>{target.id}</a>);
  if (target.kind) parts.push(<span key="kind">{`kind ${target.kind}`}</span>);
  if (target.filter) parts.push(<code key="filter">{typeof target.filter === 'string' ? target.filter : JSON.stringify(target.filter)}</code>);
  if (target.ids && target.ids.length > 0) {
    const links = target.ids.flatMap((id, i) => [...(i > 0 ? [' '] : []), <a key={id} class="mono" href={jobHref(queue, id)}>{id}</a>]);
    parts.push(<span key="ids" class="audit-ids">{links}</span>);
  }
  if (target.clipped) parts.push(<span key="clipped" class="muted">(cut)</span>);
  return parts.length === 0 ? <span class="muted">the queue</span> : <>{parts.flatMap((part, i) => (i > 0 ? [' ', part] : [part]))}</>;
}

export function AuditView({ queue, query }: { queue: string; query: URLSearchParams }) {
  const before = query.get('before') ?? '';
  const { data, error } = usePolled(() => get<{ entries: AuditEntry[]; next: string | null }>(queuePath(queue, 'audit'), { limit: 50, before }), [queue, before]);
  return (
    <section id="audit" aria-label="Audit trail">
      <h3>Audit trail</h3>
      {!data ? (
        <p class="muted">{error ? 'The audit trail could not be read.' : 'Loading…'}</p>
      ) : data.entries.length === 0 ? (
        <p class="muted">No actions recorded.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>When</th>
                <th>Who</th>
                <th>Action</th>
                <th>Target</th>
                <th>Jobs</th>
              </tr>
            </thead>
            <tbody>
              {data.entries.map((entry) => (
                <tr key={entry.id} data-audit={entry.id}>
                  <td class="mono">{time(entry.atMs)}</td>
                  <td>
                    <span class="badge">{entry.who.role}</span> {entry.who.label}
                  </td>
                  <td>
                    {entry.action}
                    {entry.error && ' '}
                    {entry.error && <span class="badge code audit-error" data-audit-error={entry.error}>{`refused: ${entry.error}`}</span>}
                  </td>
                  <td>
                    <Target queue={queue} target={entry.target} />
                  </td>
                  <td>{count(entry.count)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="pager">
        {before && <a href={queueHref(queue, 'audit')}>← Newest</a>}
        {data?.next && (
          <a id="audit-older" href={queueHref(queue, 'audit', queryString({ before: data.next }))}>
            Older →
          </a>
        )}
      </div>
    </section>
  );
}
