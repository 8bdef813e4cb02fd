// A queue's schedules: each one's timing, status and next run; one schedule's URL marks its row.

import { useEffect } from 'preact/hooks';
import { get, queuePath } from './api.ts';
import { time } from './format.ts';
import { usePolled } from './poll.ts';
import { queueHref } from './router.ts';
import type { Schedule } from './types.ts';

export function SchedulesView({ queue, name }: { queue: string; name: string | undefined }) {
  const { data, error } = usePolled(() => get<{ schedules: Schedule[] }>(queuePath(queue, 'schedules')), [queue]);
  const found = name !== undefined && Boolean(data?.schedules.some((s) => s.name === name));
  useEffect(() => {
    if (found) document.querySelector('#schedules tr.selected')?.scrollIntoView({ block: 'center' });
  }, [found, name]);
  return (
    <section id="schedules" aria-label="Schedules">
      <h3>Schedules</h3>
      {name !== undefined && data && !found && <p class="muted" id="schedule-missing">{`No schedule ${name} in ${queue}.`}</p>}
      {!data ? (
        <p class="muted">{error ? 'The schedules could not be read.' : 'Loading…'}</p>
      ) : data.schedules.length === 0 ? (
        <p class="muted">No schedules.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Kind</th>
                <th>Every</th>
                <th>Status</th>
                <th>Next run</th>
              </tr>
            </thead>
            <tbody>
              {data.schedules.map((s) => (
                <tr key={s.name} data-schedule={s.name} class={s.name === name ? 'selected' : undefined} aria-current={s.name === name ? 'true' : undefined}>
                  <td>
                    <a href={queueHref(queue, `schedules/${encodeURIComponent(s.name)}`)}>{s.name}</a>
                  </td>
                  <td>{s.kind ?? '–'}</td>
                  <td>{s.every}</td>
                  <td>{s.status ?? '–'}</td>
                  <td data-next-run={s.nextRunAtMs === null ? '' : String(s.nextRunAtMs)}>{time(s.nextRunAtMs)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
