import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

// The dashboard's uPlot charts, set up one way: a canvas that follows its box's width and the
// theme, hidden from screen readers, who read the table each page shows beside it.

export const CHART_HEIGHT = 220;
export const CHART_FONT_PX = 12;
export const CHART_FONT_FAMILY = 'system-ui, -apple-system, "Segoe UI", sans-serif';

/** An axis's line and grid colours in the light or the dark theme. */
export function axisColors(dark: boolean): Pick<uPlot.Axis, 'stroke' | 'grid'> {
  return { stroke: dark ? '#cbd5e1' : '#334155', grid: { stroke: dark ? '#1e293b' : '#e2e8f0' } };
}

/**
 * Draws a chart into `element` at its width, without legend or drag-to-zoom, and redraws it when
 * the box is resized. Returns the teardown, for an effect to return.
 */
export function mountChart(
  element: HTMLElement,
  options: Omit<uPlot.Options, 'width' | 'height' | 'legend' | 'cursor'>,
  data: uPlot.AlignedData,
): () => void {
  const plot = new uPlot(
    {
      width: element.clientWidth || 600,
      height: CHART_HEIGHT,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      ...options,
    },
    data,
    element,
  );
  const resize = new ResizeObserver(() =>
    plot.setSize({ width: element.clientWidth, height: CHART_HEIGHT }),
  );
  resize.observe(element);
  return () => {
    resize.disconnect();
    plot.destroy();
  };
}
