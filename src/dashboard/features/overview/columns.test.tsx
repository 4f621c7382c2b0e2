import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { REQUEST_STATUSES } from '../../../kit/index.ts';
import { i18n } from '../../i18n/index.ts';
import { byPipelineColumns } from './columns.tsx';
import type { PipelineDay } from './summary.ts';

const t = i18n.getFixedT('en', 'overview');

const day: PipelineDay = { id: 'pl_2', name: 'Orders', counts: { Error: 2 }, total: 5 };
const cell = (id: string) => {
  const column = byPipelineColumns(t, '20261122').find((c) => c.id === id);
  return renderToStaticMarkup(<MemoryRouter>{column?.cell(day)}</MemoryRouter>);
};

describe('byPipelineColumns', () => {
  it('has the pipeline, one column per status and the total, each with a unique id', () => {
    const ids = byPipelineColumns(t, '20261122').map((c) => c.id);
    expect(ids).toEqual(['pipeline', ...REQUEST_STATUSES, 'total']);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('counts 0 for a status without requests, and marks each count cell with its status', () => {
    expect(cell('Error')).toBe('2');
    expect(cell('Finish')).toBe('0');
    expect(
      renderToStaticMarkup(
        <>
          {byPipelineColumns(t, '20261122')
            .at(-1)
            ?.cell({ ...day, total: 12345 })}
        </>,
      ),
    ).toBe('12,345');
    const total = byPipelineColumns(t, '20261122').at(-1);
    expect(total?.cellProps?.(day)).toEqual({ 'data-status': 'total' });
  });

  it('links a pipeline to its requests of the day', () => {
    expect(cell('pipeline')).toContain('href="/requests?date=20261122&amp;pipeline=pl_2"');
  });
});
