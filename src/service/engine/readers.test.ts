import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import Papa from 'papaparse';
import { afterAll, describe, expect, it } from 'vitest';
import {
  charactersParsed,
  DEFAULT_MAX_FIELD_CHARS,
  DEFAULT_MAX_RECORD_CHARS,
  fileText,
  parseRows,
  type ReadOptions,
} from './readers.ts';
import { toObjects, type Batch, type Row } from './values.ts';

const folder = mkdtempSync(join(tmpdir(), 'readers-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

type Format = 'csv' | 'jsonl';

async function collect(
  source: AsyncIterable<string>,
  format: Format,
  batch = 2,
  options: ReadOptions = {},
): Promise<Row[]> {
  const out: Row[] = [];
  for await (const rows of parseRows(source, format, ',', batch, options))
    out.push(...toObjects(rows));
  return out;
}

/** Writes the text to a file and reads it back through fileText, as the engine does. */
async function all(
  name: string,
  text: string,
  format: Format,
  batch = 2,
  options: ReadOptions = {},
): Promise<Row[]> {
  const path = join(folder, name);
  writeFileSync(path, text);
  return collect(fileText(path), format, batch, options);
}

/** The text in chunks cut at the given offsets (in any order; out of range ones are ignored). */
async function* pieces(text: string, cuts: readonly number[] = []): AsyncGenerator<string> {
  const at = [...new Set(cuts.filter((c) => c > 0 && c < text.length))].sort((a, b) => a - b);
  let from = 0;
  for (const cut of [...at, text.length]) {
    yield text.slice(from, cut);
    from = cut;
  }
}

async function* chunksOf(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

/** A read's outcome, rows or error message, so that outcomes can be compared. */
async function outcome(
  source: AsyncIterable<string>,
  options: ReadOptions = {},
): Promise<Row[] | string> {
  try {
    return await collect(source, 'csv', 3, options);
  } catch (error) {
    return (error as Error).message;
  }
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
    const rows = await all('crlf.csv', '\uFEFFa,b\r\n1,2\r\n\r\n3,"x\r\ny"\r\n', 'csv');
    expect(rows).toEqual([
      { a: '1', b: '2' },
      { a: '3', b: 'x\r\ny' },
    ]);
  });

  it('reads CR line ends, also when chunks split them', async () => {
    const text = 'a,b\r1,"x\ry"\r\r2,3\r';
    const expected = [
      { a: '1', b: 'x\ry' },
      { a: '2', b: '3' },
    ];
    expect(await all('cr.csv', text, 'csv')).toEqual(expected);
    for (let cut = 1; cut < text.length; cut++)
      expect(await collect(pieces(text, [cut]), 'csv')).toEqual(expected);
  });

  it('keeps a lone \\r inside a field of a CRLF file, across chunks too', async () => {
    const text = 'a,b\r\n1,x\ry\r\n2,"p\rq"\r\n';
    const expected = [
      { a: '1', b: 'x\ry' },
      { a: '2', b: 'p\rq' },
    ];
    for (let cut = 0; cut < text.length; cut++)
      expect(await collect(pieces(text, [cut]), 'csv')).toEqual(expected);
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

  it('has limits of 1,048,576 characters for a record and for a field by default', () => {
    expect(DEFAULT_MAX_RECORD_CHARS).toBe(1_048_576);
    expect(DEFAULT_MAX_FIELD_CHARS).toBe(DEFAULT_MAX_RECORD_CHARS);
  });

  it('refuses a record longer than the limit, naming the row', async () => {
    const text = `a,b\n1,2\n\n3,${'x'.repeat(2_000_000)}\n4,5\n`;
    await expect(all('long.csv', text, 'csv')).rejects.toThrow(
      'row 3 is longer than 1,048,576 characters (the limit for one record)',
    );
  });

  it('refuses an unterminated quote in a large file by the record limit', async () => {
    let text = 'a,b\n1,2\n3,"never closed\n';
    while (text.length < 3_000_000) text += 'x,y\n';
    await expect(all('open-big.csv', text, 'csv')).rejects.toThrow(
      'row 3 is longer than 1,048,576 characters (the limit for one record)',
    );
  });

  it('fails a file without line ends after reading little more than the limit', async () => {
    // A sparse file of NUL characters: nothing is buffered past the limit.
    const chunk = '\0'.repeat(65_536);
    let pulled = 0;
    async function* nul(): AsyncGenerator<string> {
      for (let i = 0; i < 256; i++) {
        pulled++;
        yield chunk;
      }
    }
    await expect(collect(nul(), 'csv')).rejects.toThrow(
      'row 1 is longer than 1,048,576 characters (the limit for one record)',
    );
    expect(pulled).toBeLessThanOrEqual(1_048_576 / 65_536 + 1);
  });

  it('takes configurable limits for a record and for a field', async () => {
    const text = `a,b\n1,2\n3,${'x'.repeat(2_000_000)}\n`;
    const raised = await all('raised.csv', text, 'csv', 2, { maxRecordChars: 4_000_000 });
    expect(raised[1]?.b).toHaveLength(2_000_000);

    const exact = 'a,b\n12345,6789\n'; // the second record has exactly 10 characters
    expect(await collect(pieces(exact), 'csv', 2, { maxRecordChars: 10 })).toEqual([
      { a: '12345', b: '6789' },
    ]);
    await expect(collect(pieces(exact), 'csv', 2, { maxRecordChars: 9 })).rejects.toThrow(
      'row 2 is longer than 9 characters (the limit for one record)',
    );
    // Fields are measured as written, quotes included.
    const fields = 'a,b\n1,2\n3,"4567"\n';
    expect(await collect(pieces(fields), 'csv', 2, { maxFieldChars: 6 })).toHaveLength(2);
    for (const cuts of [[], [12], [13, 15]])
      await expect(
        collect(pieces(fields, cuts), 'csv', 2, { maxFieldChars: 5, maxRecordChars: 100 }),
      ).rejects.toThrow('row 3 has a field longer than 5 characters (the limit for one field)');
  });

  it('parses quoted fields split across chunks at every position as one chunk', async () => {
    const text =
      'name,"note, with comma"\n' +
      '1,"two\nlines, and ""quotes"""\n' +
      '"2",x"y\n' + // a quote inside an unquoted field is content
      '3,"ends with quote"""\n' +
      '"4" ,"spaced"  \n'; // white space may stand between a closing quote and what follows
    const expected = [
      { name: '1', 'note, with comma': 'two\nlines, and "quotes"' },
      { name: '2', 'note, with comma': 'x"y' },
      { name: '3', 'note, with comma': 'ends with quote"' },
      { name: '4', 'note, with comma': 'spaced' },
    ];
    expect(await outcome(pieces(text))).toEqual(expected);
    for (let cut = 1; cut < text.length; cut++)
      expect(await outcome(pieces(text, [cut]))).toEqual(expected);
    for (let cut = 1; cut < text.length - 1; cut++)
      expect(await outcome(pieces(text, [cut, cut + 1]))).toEqual(expected);
    expect(await outcome(chunksOf(text, 1))).toEqual(expected);
  });

  it('agrees with Papa on well-formed CSV, however the text is cut into chunks', async () => {
    const field = fc.string({ unit: fc.constantFrom('a', ' ', ',', '"', '\n', '\r', '\t') });
    const newline = fc.constantFrom('\n', '\r\n', '\r');
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(field, { minLength: 3, maxLength: 3 }), { minLength: 1, maxLength: 6 }),
        newline,
        fc.array(fc.nat({ max: 400 }), { maxLength: 6 }),
        async (records, nl, cuts) => {
          const quote = (f: string) => `"${f.replaceAll('"', '""')}"`;
          const write = (cells: string[]) =>
            cells.map((c) => (/[",\r\n]/.test(c) || c === '' ? quote(c) : c)).join(',');
          const text = ['x,y,z', ...records.map(write)].join(nl) + nl;
          const expected = records.map(([x, y, z]) => ({ x, y, z }));
          expect(await collect(pieces(text, cuts), 'csv', 3)).toEqual(expected);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('gives the same rows for any text whether it arrives whole or in pieces', async () => {
    // Malformed text too: wherever Papa sees a record end, the framer must see one. Each
    // line end comes with the characters that cannot tip Papa's guess of the line end.
    const texts = fc.constantFrom('\n', '\r\n', '\r').chain((nl) =>
      fc
        .string({
          unit: fc.constantFrom(
            'a',
            ' ',
            ',',
            '"',
            '""',
            nl,
            { '\n': '\r', '\r\n': '\n', '\r': '\t' }[nl],
          ),
          maxLength: 40,
        })
        .map((body) => `h1,h2${nl}${body}`),
    );
    await fc.assert(
      fc.asyncProperty(
        texts,
        fc.array(fc.nat({ max: 60 }), { maxLength: 5 }),
        async (text, cuts) => {
          const whole = await outcome(pieces(text));
          const cut = await outcome(pieces(text, cuts));
          // Where the text has several faults, the one reported may depend on the chunks.
          if (typeof whole === 'string' || typeof cut === 'string')
            expect(typeof cut).toBe(typeof whole);
          else expect(cut).toEqual(whole);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('yields the first rows of a file of \\n line ends from its first chunk, not after a MiB', async () => {
    const first = `id,name\n${'1,a\n'.repeat(50)}`;
    let pulled = 0;
    async function* source(newline: string): AsyncGenerator<string> {
      const opening = first.replaceAll('\n', newline);
      pulled = opening.length;
      yield opening;
      for (let i = 0; i < 40; i++) {
        const chunk = '2,b\n'.repeat(16_384).replaceAll('\n', newline);
        pulled += chunk.length;
        yield chunk;
      }
    }
    const lf = parseRows(source('\n'), 'csv', ',', 10);
    expect(toObjects((await lf.next()).value as Batch)).toHaveLength(10);
    expect(pulled).toBe(first.length);
    await lf.return(undefined);
    // Whether '\r\n' or '\r' ends a line is a vote over the first MiB, as Papa takes it.
    const crlf = parseRows(source('\r\n'), 'csv', ',', 10);
    await crlf.next();
    expect(pulled).toBeGreaterThanOrEqual(1 << 20);
    await crlf.return(undefined);
  });

  it('reads a file whose first line ends with \\n as Papa does, though \\r\\n ends most lines', async () => {
    const text = `a,b\n1,2\n${'3,4\r\n'.repeat(2000)}`;
    const papa = Papa.parse<string[]>(text, { skipEmptyLines: true }).data;
    const [names, ...records] = papa;
    const expected = records.map((r) => Object.fromEntries(r.map((v, i) => [names?.[i], v])));
    expect(expected[1]).toEqual({ a: '3', b: '4\r' });
    expect(await collect(chunksOf(text, 7), 'csv', 100)).toEqual(expected);
  });

  it('hands each character to Papa once, for short records and for one of 3 MB', async () => {
    let normal = 'id,name,amount\n';
    for (let i = 0; normal.length < 3_000_000; i++) normal += `${i},"name ${i}",${i * 3}\n`;
    const long = `id,name,amount\n1,"${'y, '.repeat(1_000_000)}",2\n3,"z",4\n`;
    for (const text of [normal, long]) {
      const before = charactersParsed();
      const rows = await collect(chunksOf(text, 65_536), 'csv', 1000, {
        maxRecordChars: 4_000_000,
      });
      expect(rows.length).toBeGreaterThan(1);
      expect(charactersParsed() - before).toBe(text.length);
    }
  });

  it('stops at an aborted signal and throws its reason as it is', async () => {
    let pulled = 0;
    let closed = false;
    async function* many(): AsyncGenerator<string> {
      try {
        yield 'a,b\n';
        for (let i = 0; i < 10_000; i++) {
          pulled++;
          yield '1,2\n3,4\n'.repeat(1000);
        }
      } finally {
        closed = true;
      }
    }
    const controller = new AbortController();
    const reason = new Error('cancelled by the test');
    const rows = parseRows(many(), 'csv', ',', 2, { signal: controller.signal });
    expect(toObjects((await rows.next()).value as Batch)).toEqual([
      { a: '1', b: '2' },
      { a: '3', b: '4' },
    ]);
    controller.abort(reason);
    const seen = pulled;
    await expect(rows.next()).rejects.toBe(reason);
    expect(pulled).toBeLessThanOrEqual(seen + 1);
    expect(closed).toBe(true);

    const already = AbortSignal.abort(reason);
    await expect(collect(pieces('a,b\n1,2\n'), 'csv', 2, { signal: already })).rejects.toBe(reason);
    await expect(collect(pieces('{"a":1}\n'), 'jsonl', 2, { signal: already })).rejects.toBe(
      reason,
    );
  });

  it('keeps columns named __proto__ and constructor as plain own fields', async () => {
    const rows = await all('proto.csv', '__proto__,constructor,x\np,c,1\n', 'csv');
    const row = rows[0] as Row;
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.hasOwn(row, '__proto__')).toBe(true);
    expect(Object.entries(row)).toEqual([
      ['__proto__', 'p'],
      ['constructor', 'c'],
      ['x', '1'],
    ]);
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

  it('ends lines at \\n, \\r\\n and a lone \\r, wherever chunks are cut', async () => {
    const text = '{"a":1}\r\n{"a":2}\r{"a":3}\n\r\n{"a":4}';
    for (let cut = 0; cut < text.length; cut++) {
      expect(await collect(pieces(text, [cut]), 'jsonl')).toEqual([
        { a: 1 },
        { a: 2 },
        { a: 3 },
        { a: 4 },
      ]);
    }
    // Line numbers count the blank line.
    await expect(collect(pieces('{"a":1}\r\n\r\nnope\r\n', [8]), 'jsonl')).rejects.toThrow(
      'line 3 is not valid JSON',
    );
  });

  it('refuses a line longer than the limit without buffering it', async () => {
    const text = `{"a":1}\n{"b":"${'x'.repeat(2_000_000)}"}\n`;
    await expect(all('long.jsonl', text, 'jsonl')).rejects.toThrow(
      'line 2 is longer than 1,048,576 characters (the limit for one record)',
    );
    let pulled = 0;
    async function* wide(): AsyncGenerator<string> {
      yield '{"a":1}\n{"b":"';
      for (let i = 0; i < 256; i++) {
        pulled++;
        yield 'x'.repeat(65_536);
      }
      yield '"}\n';
    }
    await expect(collect(wide(), 'jsonl')).rejects.toThrow('line 2 is longer than');
    expect(pulled).toBeLessThanOrEqual(1_048_576 / 65_536 + 1);
    const raised = await all('long.jsonl', text, 'jsonl', 2, { maxRecordChars: 3_000_000 });
    expect(raised[1]?.b).toHaveLength(2_000_000);
  });

  it('keeps keys named __proto__ and constructor as plain own fields', async () => {
    const rows = await all('proto.jsonl', '{"__proto__":null,"constructor":"c"}\n', 'jsonl');
    const row = rows[0] as Row;
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.entries(row)).toEqual([
      ['__proto__', null],
      ['constructor', 'c'],
    ]);
  });
});
