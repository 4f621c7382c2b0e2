import { describe, expect, it } from 'vitest';
import type { TablePage } from '../../../kit/index.ts';
import { toCsv, toJson } from './export.ts';

const page: TablePage = {
  info: { index: 0, prev: -1, next: -1, count: 3, total: 3, bound: undefined },
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

  /** One column, one row, as CSV without the header line. */
  const cell = (value: string): string =>
    toCsv({ ...page, columns: [{ name: 'V', type: 'VARCHAR', key: false }] }, [[value]]).slice(
      'V\n'.length,
    );

  it('puts a quote before every cell that could start a spreadsheet formula, and quotes it', () => {
    expect(cell('=1+1')).toBe(`"'=1+1"`);
    expect(cell("+1+cmd|' /C calc'!A0")).toBe(`"'+1+cmd|' /C calc'!A0"`);
    expect(cell('-2+3')).toBe(`"'-2+3"`);
    expect(cell('@SUM(A1:A2)')).toBe(`"'@SUM(A1:A2)"`);
    expect(cell('\t=1')).toBe(`"'\t=1"`);
    expect(cell('\r=1')).toBe(`"'\r=1"`);
    // A line break after the formula does not hide it.
    expect(cell('=HYPERLINK("http://evil.example","x")\nmore')).toBe(
      `"'=HYPERLINK(""http://evil.example"",""x"")\nmore"`,
    );
  });

  it('leaves plain text, plain numbers and empty cells as they are', () => {
    for (const value of ['plain', 'a=b', '-3.5', '+7', '-1e5', '42', "'quoted"]) {
      expect(cell(value)).toBe(value);
    }
    expect(cell(' =1')).toBe('" =1"'); // quoted for its leading space, as before
    expect(cell('')).toBe('');
  });

  it('neutralises column names too, and leaves JSON exact', () => {
    const hostile: TablePage = {
      ...page,
      columns: [
        { name: '=NAME', type: 'VARCHAR', key: false },
        { name: 'CELSIUS', type: 'DOUBLE', key: false },
      ],
      rows: [['@cmd', '-3.5']],
    };
    expect(toCsv(hostile, hostile.rows)).toBe(`"'=NAME",CELSIUS\n"'@cmd",-3.5`);
    // JSON is data for programs, not a spreadsheet: it keeps every value exactly.
    expect(JSON.parse(toJson(hostile, hostile.rows))).toEqual([
      { '=NAME': '@cmd', CELSIUS: '-3.5' },
    ]);
  });
});
