// A state's list of jobs: filters (kind, error code, payload field, id or payload text, time
// range) kept in the URL, a bounded scan whose cost the page states, rows with their actions,
// selection and bulk actions (by selection or by filter) with the count in the confirmation.

import { useEffect, useState } from 'preact/hooks';
import { get, queryString, queuePath } from './api.ts';
import { ACTION_WORDS, actionsFor, bulkAction, hasBulk, jobAction, type JobAction } from './actions.ts';
import { attemptsText, count, fromLocalInput, time, toLocalInput } from './format.ts';
import { usePolled } from './poll.ts';
import { jobHref, navigate, queueHref } from './router.ts';
import { useOperator, useSession } from './state.ts';
import type { JobPage, QueueOverview } from './types.ts';

const PAGE_SIZE = 25;
/** The filters a list takes, by their name in the URL and in the API's query. */
const FILTERS = ['kind', 'code', 'field', 'value', 'text', 'id', 'from', 'to'] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

const STATE_TIME: Readonly<Record<string, string>> = { failed: 'Failed', completed: 'Completed', delayed: 'Runs at', processing: 'Claimed' };

function filtersOf(query: URLSearchParams): Filters {
  const out: Filters = {};
  for (const name of FILTERS) {
    const value = query.get(name);
    if (value) out[name] = value;
  }
  return out;
}

function FilterForm({ queue, state, filters }: { queue: string; state: string; filters: Filters }) {
  const [draft, setDraft] = useState<Filters>(filters);
  useEffect(() => setDraft(filters), [JSON.stringify(filters)]);
  const input = (name: (typeof FILTERS)[number], label: string, props: Record<string, unknown> = {}) => (
    <label>
      {label}{' '}
      <input id={`filter-${name}`} name={name} autocomplete="off" spellcheck={false} value={draft[name] ?? ''} onInput={(event) => setDraft({ ...draft, [name]: event.currentTarget.value })} {...props} />
    </label>
  );
  const timeInput = (name: 'from' | 'to', label: string) => (
    <label>
      {label}{' '}
      <input
        id={`filter-${name}`}
        type="datetime-local"
        value={toLocalInput(draft[name] ? Number(draft[name]) : undefined)}
        onInput={(event) => {
          const ms = fromLocalInput(event.currentTarget.value);
          setDraft({ ...draft, [name]: ms === undefined ? '' : String(ms) });
        }}
      />
    </label>
  );
  return (
    <form
      id="filter-form"
      class="filters"
      onSubmit={(event) => {
        event.preventDefault();
        const trimmed = Object.fromEntries(Object.entries(draft).map(([name, value]) => [name, name === 'value' || name === 'text' ? value : value?.trim()]));
        navigate(queueHref(queue, state, queryString(trimmed)));
      }}
    >
      {input('kind', 'Kind', { size: 10 })}
      {input('code', 'Error code', { size: 12 })}
      {input('field', 'Payload field', { placeholder: 'user.id', size: 10 })}
      {input('value', '=', { size: 10 })}
      {input('text', 'Payload text', { size: 12 })}
      {input('id', 'Id contains', { size: 12 })}
      {timeInput('from', 'From (UTC)')}
      {timeInput('to', 'To (UTC)')}
      <span class="filter-buttons">
        <button type="submit">Filter</button>
        <button type="button" id="filter-clear" onClick={() => navigate(queueHref(queue, state))}>
          Clear
        </button>
      </span>
    </form>
  );
}

/** What the list's scan cost, in words. */
function scanNote(page: JobPage, session: { scanLimit: number }): string {
  if (!page.filtered) return '';
  const end = page.offset + page.scanned;
  const reads = Math.max(1, Math.ceil(page.scanLimit / 1000));
  return (
    `Filtered: ${count(page.jobs.length)} match(es) among entries ${count(page.scanned === 0 ? page.offset : page.offset + 1)}–${count(end)}${page.depth === null ? '' : ` of ${count(page.depth)}`}. ` +
    `A search reads at most ${count(session.scanLimit)} entries per request (${count(reads)} list read${reads === 1 ? '' : 's'} of up to 1,000 jobs with their records), never the whole list; ` +
    `${page.nextOffset === null ? 'this is the end of the list.' : `"Next" resumes the scan at entry ${count(page.nextOffset + 1)}.`}`
  );
}

function BulkBar({ queue, state, page, selected, filters, onDone }: { queue: string; state: string; page: JobPage; selected: readonly string[]; filters: Filters; onDone: () => void }) {
  const session = useSession();
  const actions = actionsFor(state, session.capabilities);
  if (actions.length === 0) return null;
  const filtered = page.filtered;
  const matched = filtered ? page.jobs.length : (page.depth ?? 0);
  const byFilter = hasBulk(session.capabilities) && matched > 0;
  const filter: Record<string, string | number> = { state, ...filters, ...(filtered && { offset: page.offset }) };
  const description = filtered ? `matching this filter in the ${count(page.scanned)} entries scanned` : `${state}`;
  const run = async (action: JobAction, target: Parameters<typeof bulkAction>[2]): Promise<void> => {
    if (await bulkAction(queue, action, target, session.capabilities)) onDone();
  };
  return (
    <div id="bulk" class="bulk">
      <span class="muted">{selected.length > 0 ? `${count(selected.length)} selected:` : 'Select jobs to act on them.'}</span>
      {selected.length > 0 &&
        actions.map((action) => (
          <button key={action} type="button" data-bulk={action} class={action === 'delete' ? 'danger' : ''} onClick={() => void run(action, { ids: selected })}>
            {ACTION_WORDS[action].label}
          </button>
        ))}
      {byFilter && (
        <span class="by-filter">
          <span class="muted">{filtered ? `All ${count(matched)} matching:` : `All ${count(matched)} ${state}:`}</span>
          {actions.map((action) => (
            <button key={action} type="button" data-bulk-filter={action} class={action === 'delete' ? 'danger' : ''} onClick={() => void run(action, { filter, matched, description })}>
              {ACTION_WORDS[action].label}
            </button>
          ))}
        </span>
      )}
    </div>
  );
}

export function JobList({ queue, state, query }: { queue: QueueOverview; state: string; query: URLSearchParams }) {
  const session = useSession();
  const operator = useOperator();
  const filters = filtersOf(query);
  const offset = Number(query.get('offset') ?? 0) || 0;
  const key = `${queue.name}|${state}|${query.toString()}`;
  const [selected, setSelected] = useState<string[]>([]);
  useEffect(() => setSelected([]), [key]);
  const { data: page, error } = usePolled(
    () => get<JobPage>(queuePath(queue.name, 'jobs'), { state, offset, limit: PAGE_SIZE, ...filters }),
    [key],
  );
  const rowActions = operator ? actionsFor(state, session.capabilities) : [];
  const selectable = rowActions.length > 0;
  const go = (nextOffset: number): void => navigate(queueHref(queue.name, state, queryString({ ...filters, offset: nextOffset || undefined })));
  const ids = page?.jobs.map((job) => job.id) ?? [];
  const allSelected = ids.length > 0 && ids.every((id) => selected.includes(id));
  const toggle = (id: string): void => setSelected(selected.includes(id) ? selected.filter((s) => s !== id) : [...selected, id]);
  const end = page ? page.offset + page.scanned : 0;
  const step = page?.filtered ? session.scanLimit : PAGE_SIZE;
  return (
    <div id="list" data-list-state={state}>
      <FilterForm queue={queue.name} state={state} filters={filters} />
      <p id="scan-note" class="muted">
        {page ? scanNote(page, session) : ''}
      </p>
      {operator && page && <BulkBar queue={queue.name} state={state} page={page} selected={selected} filters={filters} onDone={() => setSelected([])} />}
      <div class="table-wrap">
        <table id="jobs">
          <thead>
            <tr>
              {selectable && (
                <th class="check">
                  <input type="checkbox" id="select-all" aria-label="Select every job on this page" checked={allSelected} onChange={() => setSelected(allSelected ? [] : ids)} />
                </th>
              )}
              <th>Id</th>
              <th>Kind</th>
              <th class="wide-only">Attempts</th>
              <th class="wide-only">{STATE_TIME[state] ?? 'Enqueued'}</th>
              <th>Last error / payload</th>
              {selectable && <th class="wide-only">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {!page && (
              <tr>
                <td colSpan={7} class="muted">
                  {error ? 'The list could not be read.' : 'Loading…'}
                </td>
              </tr>
            )}
            {page && page.jobs.length === 0 && (
              <tr>
                <td colSpan={7} class="muted">
                  {page.filtered ? 'No match in the entries scanned.' : `No ${state} jobs here.`}
                </td>
              </tr>
            )}
            {page?.jobs.map((job) => (
              <tr key={job.id} data-id={job.id}>
                {selectable && (
                  <td class="check">
                    <input type="checkbox" data-select={job.id} aria-label={`Select job ${job.id}`} checked={selected.includes(job.id)} onChange={() => toggle(job.id)} />
                  </td>
                )}
                <td class="mono">
                  <a href={jobHref(queue.name, job.id)}>{job.id}</a>
                </td>
                <td>{job.kind ?? '?'}</td>
                <td class="wide-only">{attemptsText(job.attempts, job.maxAttempts)}</td>
                <td class="wide-only mono">{time(job.atMs ?? job.enqueuedAtMs)}</td>
                <td class={job.lastError ? 'error-text' : 'muted'}>
                  {job.errorCode && <span class="badge code" data-error-code={job.errorCode}>{job.errorCode}</span>} {job.lastError || job.payloadPreview}
                </td>
                {selectable && (
                  <td class="row-actions wide-only">
                    {rowActions.map((action) => (
                      <button key={action} type="button" class={action === 'delete' ? 'small danger' : 'small'} data-row-action={action} onClick={() => void jobAction(queue.name, job.id, action)}>
                        {ACTION_WORDS[action].label}
                      </button>
                    ))}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div id="pager" class="pager">
        <button type="button" id="page-prev" disabled={!page || page.offset === 0} onClick={() => go(Math.max(0, offset - step))}>
          ← Previous
        </button>
        <span id="page-info" class="muted">
          {page &&
            (page.depth === null
              ? page.scanned === 0
                ? ''
                : `${count(page.offset + 1)}–${count(end)}`
              : page.depth === 0
                ? ''
                : `${count(Math.min(page.offset + 1, page.depth))}–${count(Math.min(end, page.depth))} of ${count(page.depth)}`)}
        </span>
        <button type="button" id="page-next" disabled={!page || page.nextOffset === null} onClick={() => typeof page?.nextOffset === "number" && go(page.nextOffset)}>
          Next →
        </button>
      </div>
    </div>
  );
}
