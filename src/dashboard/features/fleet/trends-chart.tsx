import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type uPlot from 'uplot';
import {
  axisColors,
  CHART_FONT_FAMILY,
  CHART_FONT_PX,
  mountChart,
} from '../../components/chart.ts';

const FONT = `${CHART_FONT_PX}px ${CHART_FONT_FAMILY}`;

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
    const axis = axisColors(dark);
    const xs = days.map((_, i) => i);
    const top = Math.max(1, ...series.flatMap((s) => s.values.map((v) => v ?? 0)));
    return mountChart(
      element,
      {
        scales: {
          x: { time: false, range: [-0.5, days.length - 0.5] },
          y: { range: [0, top * 1.1] },
        },
        axes: [
          {
            ...axis,
            font: FONT,
            label: dayAxis,
            labelFont: FONT,
            values: (_u, values) => values.map((v) => (Number.isInteger(v) ? (days[v] ?? '') : '')),
          },
          { ...axis, font: FONT, label: yLabel, labelFont: FONT },
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
    );
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
