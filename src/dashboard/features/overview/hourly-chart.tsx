import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import uPlot from 'uplot';
import {
  axisColors,
  CHART_FONT_FAMILY as FONT_FAMILY,
  CHART_FONT_PX as FONT_PX,
  mountChart,
} from '../../components/chart.ts';
import { countTicks } from './ticks.ts';

// The tick marks (10 px) and their gap (5 px) beside the widest value, with a little air.
const TICK_ROOM = 18;

/** Requests per hour as bars; uPlot draws on a canvas, so a table follows for screen readers. */
export function HourlyChart({ counts, dark }: { counts: readonly number[]; dark: boolean }) {
  const { t, i18n } = useTranslation('overview');
  const target = useRef<HTMLDivElement>(null);
  const ticks = countTicks(Math.max(0, ...counts));
  const hourAxis = t('hourAxis');
  const countAxis = t('countAxis');
  const language = i18n.resolvedLanguage ?? 'en';
  useEffect(() => {
    const element = target.current;
    if (!element) return;
    const axis = axisColors(dark);
    const hours = Array.from({ length: 24 }, (_, h) => h);
    const number = new Intl.NumberFormat(language);
    const labels = ticks.map((tick) => number.format(tick));
    return mountChart(
      element,
      {
        scales: {
          x: { time: false, range: [-0.5, 23.5] },
          y: { range: () => [0, ticks.at(-1) ?? 1] },
        },
        axes: [
          {
            ...axis,
            label: hourAxis,
            values: (_u, values) =>
              values.map((v) => (Number.isInteger(v) ? String(v).padStart(2, '0') : '')),
          },
          {
            ...axis,
            label: countAxis,
            font: `${FONT_PX}px ${FONT_FAMILY}`,
            splits: () => ticks,
            values: () => labels,
            // As wide as the widest tick: uPlot's fixed 50 px let a five-digit count run
            // under the axis title.
            size: (u) => {
              // The canvas is drawn at the device's pixel ratio, so is its font.
              u.ctx.font = `${FONT_PX * devicePixelRatio}px ${FONT_FAMILY}`;
              const widest = Math.max(...labels.map((l) => u.ctx.measureText(l).width));
              return Math.ceil(widest / devicePixelRatio) + TICK_ROOM;
            },
          },
        ],
        series: [
          {},
          {
            label: countAxis,
            fill: '#0d9488cc',
            stroke: '#0f766e',
            paths: uPlot.paths.bars?.({ size: [0.7, 40] }),
            points: { show: false },
          },
        ],
      },
      [hours, [...counts]],
    );
    // ticks follow counts, which are a dependency.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [counts, dark, hourAxis, countAxis, language]);
  return (
    <figure>
      <div
        ref={target}
        aria-hidden="true"
        data-testid="hourly-chart"
        data-count-ticks={ticks.join(' ')}
      />
      <table className="sr-only">
        <caption>{t('perHour')}</caption>
        <tbody>
          {counts.map((n, hour) => (
            <tr key={hour}>
              <th scope="row">{t('hourRow', { hour: String(hour).padStart(2, '0') })}</th>
              <td>{t('count', { n })}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
