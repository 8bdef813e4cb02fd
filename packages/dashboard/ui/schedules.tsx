// A queue's schedules: each one's timing, status and next run.

import { get, queuePath } from './api.ts';
import { time } from './format.ts';
import { usePolled } from './poll.ts';
import type { Schedule } from './types.ts';

export function SchedulesView({ queue }: { queue: string }) {
  const { data, error } = usePolled(() => get<{ schedules: Schedule[] }>(queuePath(queue, 'schedules')), [queue]);
  return (
    <section id="schedules" aria-label="Schedules">
      <h3>Schedules</h3>
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
                <tr key={s.name} data-schedule={s.name} id={`schedule-${s.name}`}>
                  <td>{s.name}</td>
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
