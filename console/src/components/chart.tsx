import { useEffect, useRef, useState } from 'preact/hooks';
import type uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  /** One value per label; null: no value there (a gap in a line). */
  values: (number | null)[];
  /** How a value reads, in the chart's axis and in what is announced. */
  format: (value: number) => string;
  /** `right`: on a second axis at the right (a duration beside counts). */
  axis?: 'left' | 'right';
}

/** Colours that keep 3:1 against white and apart from each other for the colour-blind (blue, orange, purple). */
const COLOURS = ['#1f5fbf', '#c2410c', '#7e22ce'];

/**
 * A line chart (over days, one or two series) or bars (one series per agent, team, rating,
 * category), drawn by uPlot, loaded
 * only with the page that shows one. Keyboard and screen readers: the chart is one focusable
 * image named by its title; the arrow keys (Home, End) move from label to label, each announced
 * with its values in a live region. The numbers are also in the table every chart has beside it.
 */
export function Chart(props: { title: string; kind: 'line' | 'bars'; labels: string[]; series: ChartSeries[]; height?: number }) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const [focused, setFocused] = useState<number | null>(null);
  const { labels, series, kind } = props;

  useEffect(() => {
    let cancelled = false;
    let resized: ResizeObserver | null = null;
    void import('uplot').then(({ default: UPlot }) => {
      if (cancelled || !host.current) return;
      const width = Math.max(280, host.current.clientWidth);
      const bars = kind === 'bars' ? UPlot.paths.bars!({ size: [0.6, 48], align: 0 }) : undefined;
      // At most about 12 labels on the axis: every step-th.
      const step = Math.ceil(labels.length / 12);
      const right = series.find((one) => one.axis === 'right');
      const options: uPlot.Options = {
        width,
        height: props.height ?? 240,
        legend: { show: true },
        cursor: { drag: { x: false, y: false }, points: { show: kind === 'line' } },
        scales: { x: { time: false, range: (_, min, max) => (kind === 'bars' ? [min - 0.5, max + 0.5] : [min, max]) } },
        axes: [
          {
            values: (_, ticks) => ticks.map((tick) => (Number.isInteger(tick) && tick % step === 0 ? (labels[tick] ?? '') : '')),
            splits: () => labels.map((_, index) => index),
            rotate: labels.length > 8 ? -45 : 0,
            size: labels.length > 8 ? 70 : 40,
          } as uPlot.Axis,
          { size: 64, values: (_, ticks) => ticks.map((tick) => series.find((one) => one.axis !== 'right')?.format(tick) ?? String(tick)) },
          ...(right
            ? [{ scale: 'right', side: 1, size: 72, grid: { show: false }, values: (_: uPlot, ticks: number[]) => ticks.map(right.format) }]
            : []),
        ],
        series: [
          { label: 'At', value: (_: uPlot, index: number | null) => (index === null ? '—' : (labels[index] ?? '—')) },
          ...series.map((one, index) => ({
            label: one.label,
            scale: one.axis === 'right' ? 'right' : 'y',
            stroke: COLOURS[index % COLOURS.length],
            fill: kind === 'bars' ? `${COLOURS[index % COLOURS.length]}cc` : undefined,
            width: 2,
            paths: bars,
            points: { show: kind === 'line' && labels.length < 40 },
            value: (_: uPlot, value: number | null) => (value === null ? '—' : one.format(value)),
          })),
        ],
      };
      plot.current?.destroy();
      plot.current = new UPlot(
        options,
        [labels.map((_, index) => index), ...series.map((one) => one.values)] as uPlot.AlignedData,
        host.current,
      );
      // The chart follows its column's width (a window resized, a phone turned).
      resized = new ResizeObserver(() => {
        const chart = plot.current;
        if (chart && host.current) chart.setSize({ width: Math.max(280, host.current.clientWidth), height: chart.height });
      });
      resized.observe(host.current);
    });
    return () => {
      cancelled = true;
      resized?.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [labels, series, kind]);

  // Other labels: what was being read is gone.
  useEffect(() => setFocused(null), [labels]);

  const announce = (index: number) => {
    setFocused(index);
    const chart = plot.current;
    if (chart) chart.setCursor({ left: chart.valToPos(index, 'x'), top: chart.bbox.height / devicePixelRatio / 2 });
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (labels.length === 0) return;
    const current = focused ?? -1;
    const next =
      event.key === 'ArrowRight'
        ? Math.min(labels.length - 1, current + 1)
        : event.key === 'ArrowLeft'
          ? Math.max(0, current - 1)
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? labels.length - 1
              : null;
    if (next === null) return;
    event.preventDefault();
    announce(next);
  };
  const described =
    focused === null
      ? ''
      : `${labels[focused]}: ${series.map((one) => `${one.label} ${one.values[focused] === null ? 'none' : one.format(one.values[focused]!)}`).join(', ')}`;
  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      <div
        ref={host}
        class="chart-canvas"
        role="img"
        tabIndex={0}
        aria-label={`${props.title}. ${labels.length} ${kind === 'line' ? 'points' : 'bars'}; use the arrow keys to read each, or the table beside.`}
        onKeyDown={onKeyDown}
        onBlur={() => setFocused(null)}
      />
      <p class="chart-reading" aria-live="polite">
        {described}
      </p>
    </figure>
  );
}
