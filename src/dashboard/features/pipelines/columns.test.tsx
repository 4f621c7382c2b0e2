import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import type { Pipeline } from '../../../kit/index.ts';
import { i18n } from '../../i18n/index.ts';
import { pipelineColumns } from './columns.tsx';

// auth.ts reads the browser's storage as it loads; the definitions need none of it.
vi.mock('../../core/auth.ts', () => ({ useAuth: () => null, useForbidden: () => () => undefined }));
// The zone-aware clock reads the stored preferences; these cells show no time.
vi.mock('../../components/time.tsx', () => ({ ServiceTime: () => null }));
vi.mock('../../shared/queries.ts', () => ({ useSetRunmode: () => ({ mutate: vi.fn() }) }));
// Whether the service is down reads the services list and the clock: here it answers.
vi.mock('../../shared/service-down.ts', () => ({ useServiceDown: () => undefined }));

const pipeline = {
  id: 'pl_1',
  name: 'Orders',
  description: 'Reads orders',
  runmode: 'run',
  createdate: '2026-11-22',
  updatedate: '2026-11-22',
  args: [
    { name: 'minAmount', value: '10' },
    { name: 'region', value: 'EU' },
  ],
} as unknown as Pipeline;

const columns = pipelineColumns({
  t: i18n.getFixedT('en', 'pipelines'),
  execReason: undefined,
  cacheReason: 'Not for your role',
  onExec: vi.fn(),
  onClearCache: vi.fn(),
});
const cell = (id: string, p: Pipeline = pipeline) =>
  renderToStaticMarkup(<MemoryRouter>{columns.find((c) => c.id === id)?.cell(p)}</MemoryRouter>);

describe('pipelineColumns', () => {
  it('has every field of the list, each column once, top-aligned', () => {
    const ids = columns.map((c) => c.id);
    expect(ids).toEqual([
      'id',
      'name',
      'runmode',
      'created',
      'updated',
      'description',
      'args',
      'actions',
    ]);
    expect(columns.every((c) => c.className?.startsWith('align-top'))).toBe(true);
  });

  it('shows Args as name = default, one a line, and says so when there are none', () => {
    expect(cell('args')).toBe('<div>minAmount = 10</div><div>region = EU</div>');
    expect(cell('args', { ...pipeline, args: [] })).toBe('none');
  });

  it('links to the pipeline’s requests of today', () => {
    expect(cell('actions')).toMatch(/href="\/requests\?pipeline=pl_1"/);
  });
});
