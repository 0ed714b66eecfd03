import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { CapacitySample } from '../../../../shared/telemetry';
import { useHostStore } from '../../store';
import { formatAxisClock } from '../format';

export interface ChartSeries {
  label: string;
  value: (sample: CapacitySample) => number;
  /** A CSS custom property of styles/base.css, read when the chart is built (so dark mode follows). */
  color: string;
  fill?: string;
  stepped?: boolean;
  dashed?: boolean;
}

export interface TelemetryChartProps {
  title: string;
  series: ChartSeries[];
  /** The y axis is fixed from 0 to max (or to the data's max when null). */
  max: number | null;
  unit: string;
  /** What a screen reader hears, given the latest sample. */
  describe: (latest: CapacitySample | undefined, count: number) => string;
  testId: string;
}

const HEIGHT = 110;

/** HH:MM, or HH:MM:SS when ticks are less than a minute apart (the first minutes after start). */
const clockLabel = formatAxisClock;

function toData(samples: CapacitySample[], series: ChartSeries[]): uPlot.AlignedData {
  return [samples.map((s) => s.t / 1000), ...series.map((line) => samples.map(line.value))];
}

/** uPlot's options for one chart, in the colours the stylesheet has now (light or dark). */
function chartOptions(width: number, lines: ChartSeries[], yMax: number | null, yUnit: string): uPlot.Options {
  const css = getComputedStyle(document.documentElement);
  const color = (name: string) => css.getPropertyValue(name).trim() || '#888';
  const axis: uPlot.Axis = {
    stroke: color('--muted'),
    grid: { stroke: color('--border'), width: 1 },
    ticks: { show: false },
    font: '10px system-ui, sans-serif',
  };
  return {
    width: Math.max(120, width),
    height: HEIGHT,
    legend: { show: false },
    cursor: { show: false },
    scales: { x: { time: true }, y: { range: (_u, _min, dataMax) => [0, yMax ?? Math.ceil(Math.max(1, dataMax) * 1.25)] } },
    axes: [
      // One line of HH:MM: uPlot's default adds a date line that a small chart has no room for.
      { ...axis, size: 20, space: 60, values: (_u, ticks, _axis, _space, incr) => ticks.map((t) => clockLabel(t, incr < 60)) },
      { ...axis, size: 38, space: 30, values: (_u, ticks) => ticks.map((v) => (Number.isInteger(v) ? `${v}${yUnit}` : '')) },
    ],
    series: [
      {},
      ...lines.map((line): uPlot.Series => ({
        label: line.label,
        stroke: color(line.color),
        width: 1.5,
        ...(line.fill ? { fill: color(line.fill) } : {}),
        ...(line.dashed ? { dash: [4, 4] } : {}),
        ...(line.stepped && uPlot.paths.stepped ? { paths: uPlot.paths.stepped({ align: 1 }) } : {}),
        points: { show: false },
      })),
    ],
  };
}

/**
 * A small live chart over the last hour of capacity samples. Built once (and again only
 * when the colour scheme flips); each new sample goes in with setData straight from a
 * store subscription, so React never re-renders the chart and uPlot never rebuilds it.
 */
export function TelemetryChart({ title, series, max, unit, describe, testId }: TelemetryChartProps) {
  const container = useRef<HTMLDivElement>(null);
  // The props are fixed per chart; keep the first ones so the effect runs once.
  const config = useRef({ series, max, unit, describe });

  useEffect(() => {
    const el = container.current;
    if (!el) return;
    const { series: lines, max: yMax, unit: yUnit, describe: say } = config.current;
    let plot: uPlot | null = null;

    const label = (samples: CapacitySample[]) => el.setAttribute('aria-label', say(samples.at(-1), samples.length));
    const build = () => {
      plot?.destroy();
      const samples = useHostStore.getState().telemetry.samples;
      plot = new uPlot(chartOptions(el.clientWidth, lines, yMax, yUnit), toData(samples, lines), el);
      label(samples);
    };
    build();

    const unsubscribe = useHostStore.subscribe((state, previous) => {
      if (state.telemetry === previous.telemetry || !plot) return;
      plot.setData(toData(state.telemetry.samples, lines));
      label(state.telemetry.samples);
    });
    const resize = new ResizeObserver(() => {
      if (plot && Math.abs(plot.width - el.clientWidth) > 1) plot.setSize({ width: Math.max(120, el.clientWidth), height: HEIGHT });
    });
    resize.observe(el);
    const scheme = window.matchMedia('(prefers-color-scheme: dark)');
    scheme.addEventListener('change', build);
    return () => {
      unsubscribe();
      resize.disconnect();
      scheme.removeEventListener('change', build);
      plot?.destroy();
      plot = null;
    };
  }, []);

  return (
    <figure className="chart card">
      <figcaption className="chart-title">{title}</figcaption>
      <div ref={container} className="chart-canvas" role="img" data-testid={testId} />
    </figure>
  );
}
