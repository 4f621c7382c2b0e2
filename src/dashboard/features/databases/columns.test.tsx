import type { ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import type { ColumnInfo } from '../../../kit/index.ts';
import { i18n } from '../../i18n/index.ts';
import { rowColumns, tableListColumns } from './columns.tsx';
import type { Sort } from './rows.ts';

const columns: ColumnInfo[] = [
  { name: 'ID', type: 'INTEGER', key: true },
  { name: 'NOTE', type: 'VARCHAR', key: false },
];
const t = i18n.getFixedT('en', 'databases');
const render = (node: ReactNode) => renderToStaticMarkup(<MemoryRouter>{node}</MemoryRouter>);

describe('rowColumns', () => {
  it('has one column per column of the table, the key marked and the type shown', () => {
    const defs = rowColumns(t, columns, undefined, vi.fn(), vi.fn());
    expect(defs.map((d) => d.id)).toEqual(['0:ID', '1:NOTE']);
    const id = render(defs[0]?.header);
    expect(id).toContain('KEY');
    expect(id).toContain('INTEGER');
    expect(render(defs[1]?.header)).not.toContain('KEY');
  });

  it('marks a NULL cell for the specs and styles, and an empty string not', () => {
    const note = rowColumns(t, columns, undefined, vi.fn(), vi.fn())[1];
    expect(note?.cellProps?.(['1', null])).toMatchObject({ 'data-null': 'true', title: 'NULL' });
    expect(note?.cellProps?.(['1', ''])).toMatchObject({ 'data-null': undefined, title: '' });
  });

  it('shows the sorted column’s direction in its header', () => {
    const sort: Sort = { column: 'NOTE', descending: true };
    const defs = rowColumns(t, columns, sort, vi.fn(), vi.fn());
    expect(render(defs[1]?.header)).toContain('▼');
    expect(render(defs[0]?.header)).not.toContain('▼');
  });
});

describe('tableListColumns', () => {
  it('links each table with its row count, keeping the list’s page and filter', () => {
    const [table] = tableListColumns(t, 'action', 'ORDERS', { listIndex: 50, filter: 'or' });
    const html = render(table?.cell({ name: 'ORDERS', rows: { count: 1234, atLeast: false } }));
    expect(html).toContain('href="/databases/action?listIndex=50&amp;filter=or&amp;table=ORDERS"');
    expect(html).toContain('aria-current="true"');
    expect(html).toContain('1,234 rows');
  });

  it('says “at least” of a table a gateway read only the first rows of, and “…” of one untold', () => {
    const [table] = tableListColumns(t, 'action', undefined, {});
    const bound = render(table?.cell({ name: 'SALES', rows: { count: 1000, atLeast: true } }));
    expect(bound).toContain('at least 1,000 rows');
    expect(render(table?.cell({ name: 'SALES', rows: undefined }))).toContain('…');
  });
});
