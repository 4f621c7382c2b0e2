import { describe, expect, it } from 'vitest';
import type { TablePage } from '../../../kit/index.ts';
import { toCsv, toJson } from './export.ts';

const page: TablePage = {
  info: { index: 0, prev: -1, next: -1, count: 3, total: 3 },
  columns: [
    { name: 'ID', type: 'INTEGER', key: true },
    { name: 'NOTE', type: 'VARCHAR', key: false },
  ],
  rows: [
    ['1', 'plain'],
    ['2', null],
    ['3', 'comma, "quote"\nline'],
  ],
};

describe('exports of a loaded page', () => {
  it('writes RFC 4180 CSV with a header row; NULL becomes an empty field', () => {
    expect(toCsv(page, page.rows)).toBe('ID,NOTE\n1,plain\n2,\n3,"comma, ""quote""\nline"');
  });

  it('writes JSON objects keeping NULL as null', () => {
    expect(JSON.parse(toJson(page, page.rows))).toEqual([
      { ID: '1', NOTE: 'plain' },
      { ID: '2', NOTE: null },
      { ID: '3', NOTE: 'comma, "quote"\nline' },
    ]);
  });
});
