import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatCount } from '../../shared/strings.ts';
import { strings } from './strings.ts';

/** Requests per hour as bars; uPlot draws on a canvas, so a table follows for screen readers. */
export function HourlyChart({ counts, dark }: { counts: readonly number[]; dark: boolean }) {
  const target = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = target.current;
    if (!element) return;
    const axisColor = dark ? '#cbd5e1' : '#334155';
    const grid = { stroke: dark ? '#1e293b' : '#e2e8f0' };
    const hours = Array.from({ length: 24 }, (_, h) => h);
    const plot = new uPlot(
      {
        width: element.clientWidth || 600,
        height: 220,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: {
          x: { time: false, range: [-0.5, 23.5] },
          y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
        },
        axes: [
          {
            stroke: axisColor,
            grid,
            label: strings.hourAxis,
            values: (_u, ticks) =>
              ticks.map((t) => (Number.isInteger(t) ? String(t).padStart(2, '0') : '')),
          },
          { stroke: axisColor, grid, label: strings.countAxis },
        ],
        series: [
          {},
          {
            label: strings.countAxis,
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
      plot.setSize({ width: element.clientWidth, height: 220 }),
    );
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [counts, dark]);
  return (
    <figure>
      <div ref={target} aria-hidden="true" data-testid="hourly-chart" />
      <table className="sr-only">
        <caption>{strings.perHour}</caption>
        <tbody>
          {counts.map((n, hour) => (
            <tr key={hour}>
              <th scope="row">{String(hour).padStart(2, '0')}:00</th>
              <td>{formatCount(n)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
