// A queue's metrics history from Redis (per-minute counts and run-time percentiles), drawn with
// uPlot for the last hour, day or 14 days, for the whole queue or one kind.

import { get, queryString, queuePath } from './api.ts';
import { Chart, type Series } from './chart.tsx';
import { usePolled } from './poll.ts';
import { navigate, queueHref } from './router.ts';
import type { History } from './types.ts';

const RANGES = ['1h', '24h', '14d'] as const;
const COUNT_SERIES: readonly Series[] = [
  { label: 'enqueued', color: '#2456c7', dash: [4, 3] },
  { label: 'completed', color: '#1f8a4c' },
  { label: 'failed', color: '#c0392b' },
  { label: 'retried', color: '#b7791f' },
];
const RUN_SERIES: readonly Series[] = [
  { label: 'p50', color: '#1f8a4c' },
  { label: 'p95', color: '#b7791f' },
  { label: 'p99', color: '#c0392b' },
];

export function HistoryView({ queue, query }: { queue: string; query: URLSearchParams }) {
  const range = RANGES.find((r) => r === query.get('range')) ?? '1h';
  const kind = query.get('kind') ?? '';
  const { data, error } = usePolled(() => get<History>(queuePath(queue, 'history'), { range, kind }), [queue, range, kind]);
  const href = (next: { range?: string; kind?: string }): string => queueHref(queue, 'history', queryString({ range: next.range ?? range, kind: next.kind ?? kind }));
  const x = data?.atMs.map((ms) => ms / 1000) ?? [];
  return (
    <section id="history" aria-label="History">
      <div class="inline history-tools">
        <span id="history-ranges" class="inline">
          {RANGES.map((r) => (
            <a key={r} href={href({ range: r })} class={r === range ? 'tab active' : 'tab'} data-range={r} aria-current={r === range ? 'page' : undefined}>
              {r}
            </a>
          ))}
        </span>
        <label>
          Kind{' '}
          <select id="history-kind" value={kind} onChange={(event) => navigate(href({ kind: event.currentTarget.value }))}>
            <option value="">every kind</option>
            {(data?.kinds ?? []).map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
      </div>
      {!data ? (
        <p class="muted">{error ? 'The history could not be read.' : 'Loading…'}</p>
      ) : (
        <>
          <h3>{`Jobs per ${Math.round(data.stepMs / 60_000) || 1} min`}</h3>
          <Chart id="history-counts" data={[x, [...data.enqueued], [...data.completed], [...data.failed], [...data.retried]]} series={COUNT_SERIES} title={`${queue}: jobs per step`} height={180} />
          <h3>Run time</h3>
          <Chart id="history-runtime" data={[x, [...data.runMsP50], [...data.runMsP95], [...data.runMsP99]]} series={RUN_SERIES} title={`${queue}: run time percentiles`} height={180} unit=" ms" />
        </>
      )}
    </section>
  );
}
