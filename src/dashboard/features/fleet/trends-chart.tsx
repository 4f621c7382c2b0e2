import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

// uPlot, as the overview's hourly chart draws (features/overview/hourly-chart.tsx; a feature
// may not import another's, so the few lines of set-up are repeated here): a canvas that
// follows its box's width and the theme, hidden from screen readers, who read the table
// the page shows beside it.

const HEIGHT = 220;
const FONT = '12px system-ui, -apple-system, "Segoe UI", sans-serif';

export interface TrendSeries {
  readonly label: string;
  /** One value per day, null where nothing is known (drawn as a gap). */
  readonly values: readonly (number | null)[];
  /** Line colours for the light and the dark theme. */
  readonly light: string;
  readonly dark: string;
}

/** Days as lines with points: one series per outcome, or p50 and p95. */
export function TrendsChart({
  days,
  series,
  yLabel,
  dark,
  testId,
}: {
  /** The x axis's labels, one per day. */
  days: readonly string[];
  series: readonly TrendSeries[];
  yLabel: string;
  dark: boolean;
  testId: string;
}) {
  const { t } = useTranslation('fleet');
  const target = useRef<HTMLDivElement>(null);
  const dayAxis = t('trends.dayAxis');
  useEffect(() => {
    const element = target.current;
    if (!element) return;
    const axisColor = dark ? '#cbd5e1' : '#334155';
    const grid = { stroke: dark ? '#1e293b' : '#e2e8f0' };
    const xs = days.map((_, i) => i);
    const top = Math.max(1, ...series.flatMap((s) => s.values.map((v) => v ?? 0)));
    const plot = new uPlot(
      {
        width: element.clientWidth || 600,
        height: HEIGHT,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: {
          x: { time: false, range: [-0.5, days.length - 0.5] },
          y: { range: [0, top * 1.1] },
        },
        axes: [
          {
            stroke: axisColor,
            grid,
            font: FONT,
            label: dayAxis,
            labelFont: FONT,
            values: (_u, values) => values.map((v) => (Number.isInteger(v) ? (days[v] ?? '') : '')),
          },
          { stroke: axisColor, grid, font: FONT, label: yLabel, labelFont: FONT },
        ],
        series: [
          {},
          ...series.map((s) => ({
            label: s.label,
            stroke: dark ? s.dark : s.light,
            width: 2,
            points: { show: true, size: 5 },
            spanGaps: false,
          })),
        ],
      },
      [xs, ...series.map((s) => s.values.map((v) => v))] as uPlot.AlignedData,
      element,
    );
    const resize = new ResizeObserver(() =>
      plot.setSize({ width: element.clientWidth, height: HEIGHT }),
    );
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [days, series, yLabel, dark, dayAxis]);
  return (
    <figure className="min-w-0">
      <div ref={target} aria-hidden="true" data-testid={testId} />
      <figcaption className="mt-1 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-700 dark:text-slate-300">
        {series.map((s) => (
          <span key={s.label} className="inline-flex items-center gap-1.5">
            <LegendSwatch light={s.light} />
            {s.label}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

/** The swatch colours of the series, as classes (the CSP forbids inline styles). */
const SWATCHES: Readonly<Record<string, string>> = {
  '#b91c1c': 'bg-red-700 dark:bg-red-400',
  '#0f766e': 'bg-teal-700 dark:bg-teal-400',
  '#b45309': 'bg-amber-700 dark:bg-amber-400',
  '#1d4ed8': 'bg-blue-700 dark:bg-blue-400',
  '#6d28d9': 'bg-violet-700 dark:bg-violet-400',
};

function LegendSwatch({ light }: { light: string }) {
  return (
    <span
      aria-hidden="true"
      className={`inline-block h-1 w-4 rounded-sm ${SWATCHES[light] ?? 'bg-slate-500'}`}
    />
  );
}
