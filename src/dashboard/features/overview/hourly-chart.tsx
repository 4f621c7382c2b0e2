import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { countTicks } from './ticks.ts';

const HEIGHT = 220;
// The tick marks (10 px) and their gap (5 px) beside the widest value, with a little air.
const TICK_ROOM = 18;
const FONT_PX = 12;
const FONT_FAMILY = 'system-ui, -apple-system, "Segoe UI", sans-serif';

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
    const axisColor = dark ? '#cbd5e1' : '#334155';
    const grid = { stroke: dark ? '#1e293b' : '#e2e8f0' };
    const hours = Array.from({ length: 24 }, (_, h) => h);
    const number = new Intl.NumberFormat(language);
    const labels = ticks.map((tick) => number.format(tick));
    const plot = new uPlot(
      {
        width: element.clientWidth || 600,
        height: HEIGHT,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: {
          x: { time: false, range: [-0.5, 23.5] },
          y: { range: () => [0, ticks.at(-1) ?? 1] },
        },
        axes: [
          {
            stroke: axisColor,
            grid,
            label: hourAxis,
            values: (_u, values) =>
              values.map((v) => (Number.isInteger(v) ? String(v).padStart(2, '0') : '')),
          },
          {
            stroke: axisColor,
            grid,
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
