import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { columnClasses, DataTable, type ColumnDef } from './data-table.tsx';

interface Fruit {
  readonly name: string;
  readonly count: number;
}

const columns: ColumnDef<Fruit>[] = [
  { id: 'name', header: 'Name', cell: (f) => f.name },
  {
    id: 'count',
    header: 'Count',
    className: 'text-right',
    cellClassName: 'font-semibold',
    priority: 'low',
    cellProps: (f) => ({ 'data-count': String(f.count) }),
    cell: (f) => f.count,
  },
];

describe('DataTable', () => {
  it('draws one header per column and one cell per column and row, with their attributes', () => {
    const html = renderToStaticMarkup(
      <DataTable
        columns={columns}
        rows={[
          { name: 'apple', count: 3 },
          { name: 'pear', count: 5 },
        ]}
        rowKey={(f) => f.name}
        rowProps={(f) => ({ 'data-fruit': f.name })}
        testId="fruits"
      />,
    );
    expect(html).toContain('data-testid="fruits"');
    expect(html.match(/<th /g)).toHaveLength(2);
    expect(html.match(/<td /g)).toHaveLength(4);
    expect(html).toContain('data-fruit="pear"');
    expect(html).toContain('data-count="5"');
    expect(html).toContain('>Count</th>');
  });

  it('spans an empty table’s message over every column, whatever their number', () => {
    const html = renderToStaticMarkup(
      <DataTable columns={columns} rows={[]} rowKey={(f) => f.name} empty="Nothing" />,
    );
    expect(html).toContain(`colSpan="${columns.length}"`);
    expect(html).toContain('Nothing');
  });

  it('says nothing for an empty table without a message (still loading, say)', () => {
    const html = renderToStaticMarkup(
      <DataTable columns={columns} rows={[]} rowKey={(f) => f.name} />,
    );
    expect(html).not.toContain('<td');
  });
});

describe('columnClasses', () => {
  it('hides low-priority columns on narrow screens and adds header or cell classes', () => {
    const count = columns[1] as ColumnDef<Fruit>;
    expect(columnClasses(count, 'header')).toBe('hidden lg:table-cell text-right');
    expect(columnClasses(count, 'cell')).toBe('hidden lg:table-cell text-right font-semibold');
    expect(columnClasses(columns[0] as ColumnDef<Fruit>, 'cell')).toBe('');
  });
});

describe('flush columns', () => {
  it('leave the padding to their cells', () => {
    const html = renderToStaticMarkup(
      <DataTable
        columns={[{ id: 'link', header: 'Link', flush: true, cell: (f: Fruit) => f.name }]}
        rows={[{ name: 'apple', count: 1 }]}
        rowKey={(f) => f.name}
      />,
    );
    expect(html).toContain('<td>apple</td>');
  });
});
