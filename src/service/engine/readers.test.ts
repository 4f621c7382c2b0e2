import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRows } from './readers.ts';
import type { Row } from './values.ts';

const folder = mkdtempSync(join(tmpdir(), 'readers-'));

async function all(name: string, text: string, format: 'csv' | 'jsonl', batch = 2): Promise<Row[]> {
  const path = join(folder, name);
  writeFileSync(path, text);
  const out: Row[] = [];
  for await (const rows of readRows(path, format, ',', batch)) out.push(...rows);
  return out;
}

describe('CSV reader', () => {
  it('follows RFC 4180 quoting: delimiters, newlines and doubled quotes inside quotes', async () => {
    const rows = await all('q.csv', 'a,b\n1,"x, y"\n2,"two\nlines"\n3,"say ""hi"""\n', 'csv');
    expect(rows).toEqual([
      { a: '1', b: 'x, y' },
      { a: '2', b: 'two\nlines' },
      { a: '3', b: 'say "hi"' },
    ]);
  });

  it('reads CRLF line ends and a byte order mark, and skips blank lines', async () => {
    const rows = await all('crlf.csv', '\uFEFFa,b\r\n1,2\r\n\r\n3,4\r\n', 'csv');
    expect(rows).toEqual([
      { a: '1', b: '2' },
      { a: '3', b: '4' },
    ]);
  });

  it('streams a file larger than one read in batches', async () => {
    let text = 'n,s\n';
    for (let i = 0; i < 50_000; i++) text += `${i},"v${i}, with comma"\n`;
    const rows = await all('big.csv', text, 'csv', 1000);
    expect(rows).toHaveLength(50_000);
    expect(rows[49_999]).toEqual({ n: '49999', s: 'v49999, with comma' });
  });

  it('refuses a row whose field count differs from the header', async () => {
    await expect(all('bad.csv', 'a,b\n1,2\n3\n', 'csv')).rejects.toThrow(
      'row 3 has 1 fields, the header has 2',
    );
  });

  it('refuses an unterminated quote instead of swallowing the rest of the file', async () => {
    await expect(all('open.csv', 'a,b\n1,2\n3,"four\n5,6\n', 'csv')).rejects.toThrow(
      'a quoted field is not terminated',
    );
  });

  it('refuses a header that names a column twice', async () => {
    await expect(all('dup.csv', 'a,a\n1,2\n', 'csv')).rejects.toThrow('names a column twice');
  });
});

describe('JSON Lines reader', () => {
  it('reads objects, keeps null, turns nested values into JSON text', async () => {
    const rows = await all('a.jsonl', '{"a":1,"b":null,"c":{"d":[1]}}\n\n{"a":"x"}\n', 'jsonl');
    expect(rows).toEqual([{ a: 1, b: null, c: '{"d":[1]}' }, { a: 'x' }]);
  });

  it('names the line that is not an object', async () => {
    await expect(all('b.jsonl', '{"a":1}\n[1,2]\n', 'jsonl')).rejects.toThrow(
      'line 2 is not a JSON object',
    );
    await expect(all('c.jsonl', '{"a":1}\n{oops\n', 'jsonl')).rejects.toThrow(
      'line 2 is not valid JSON',
    );
  });
});
