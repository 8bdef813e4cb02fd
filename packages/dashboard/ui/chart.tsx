// A uPlot line chart that fits its container's width and redraws when its data change.

import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

/** One line of a chart: its label and its CSS colour. */
export interface Series {
  readonly label: string;
  readonly color: string;
  readonly dash?: readonly number[];
}

interface ChartProps {
  /** x (Unix seconds) first, then one array per series. */
  readonly data: readonly (readonly (number | null)[])[];
  readonly series: readonly Series[];
  readonly title: string;
  readonly height?: number;
  /** The y axis's unit, for its labels. */
  readonly unit?: string;
  readonly id?: string;
}

const widthOf = (element: HTMLElement): number => Math.max(200, Math.floor(element.clientWidth));

/**
 * The chart. Its container carries `data-points` (how many x values it draws) and, per series,
 * `data-max-<n>`: the series' largest value, so tests and people can read what it shows.
 */
export function Chart({ data, series, title, height = 150, unit = '', id }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shape = series.map((s) => s.label).join('|');
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const options: uPlot.Options = {
      width: widthOf(element),
      height,
      legend: { show: true, live: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      axes: [{}, { size: unit ? 66 : 48, values: (_u, ticks) => ticks.map((tick) => `${Math.round(tick * 100) / 100}${unit}`) }],
      series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 1.6, ...(s.dash && { dash: [...s.dash] }), spanGaps: false }))],
    };
    plot.current = new uPlot(options, data as uPlot.AlignedData, element);
    const resize = new ResizeObserver(() => plot.current?.setSize({ width: widthOf(element), height }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
    // Rebuilt when the lines change; new data alone only redraws (below).
  }, [shape, height, unit]);
  useEffect(() => {
    plot.current?.setData(data as uPlot.AlignedData);
  }, [data]);
  const maxima = Object.fromEntries(
    series.map((_, i) => [`data-max-${i + 1}`, String(Math.max(0, ...((data[i + 1] ?? []).filter((v) => typeof v === 'number') as number[])))]),
  );
  return <div class="chart" role="img" aria-label={title} title={title} ref={box} id={id} data-points={String(data[0]?.length ?? 0)} {...maxima} />;
}
