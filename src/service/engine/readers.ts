import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import Papa from 'papaparse';
import type { Row, Value } from './values.ts';

export class InputError extends Error {
  override readonly name = 'InputError';
}

export type InputFormat = 'csv' | 'jsonl';

export function formatOf(filename: string, configured: 'auto' | InputFormat): InputFormat {
  if (configured !== 'auto') return configured;
  return /\.(jsonl|ndjson)$/i.test(filename) ? 'jsonl' : 'csv';
}

/**
 * Streams a CSV file with a header row in batches of rows. PapaParse handles RFC 4180
 * quoting (delimiters, newlines and doubled quotes inside quotes) and reports unterminated
 * quotes; a row whose field count differs from the header's is refused here, never padded
 * or merged. It parsed 1,000,000 rows about four times faster than csv-parse on this kind of
 * machine; uDSV was faster still but silently merges or drops malformed rows.
 */
async function* readCsv(
  source: AsyncIterable<string>,
  delimiter: string,
  batchSize: number,
): AsyncGenerator<Row[]> {
  const queue: string[][][] = [];
  let failure: Error | undefined;
  let finished = false;
  let parser: Papa.Parser | undefined;
  let wake: (() => void) | undefined;
  const signal = (): void => {
    wake?.();
    wake = undefined;
  };
  const stream = Readable.from(source, { objectMode: false, encoding: 'utf8' });
  Papa.parse<string[]>(stream, {
    delimiter,
    quoteChar: '"',
    skipEmptyLines: true,
    chunk(results, handle) {
      const quoteError = results.errors.find((e) => e.type === 'Quotes');
      if (quoteError) failure ??= new InputError('a quoted field is not terminated');
      queue.push(results.data);
      parser = handle;
      // Backpressure: the parser waits until the consumer has taken this chunk.
      handle.pause();
      signal();
    },
    complete() {
      finished = true;
      signal();
    },
    error(error) {
      failure ??= new InputError(error.message);
      finished = true;
      signal();
    },
  });
  let names: string[] | undefined;
  let line = 0;
  let batch: Row[] = [];
  try {
    for (;;) {
      if (failure) throw failure;
      const rows = queue.shift();
      if (!rows) {
        if (finished) break;
        const next = new Promise<void>((resolve) => (wake = resolve));
        parser?.resume();
        await next;
        continue;
      }
      for (const cells of rows) {
        line++;
        if (!names) {
          names = cells.map((name, i) => (i === 0 ? name.replace(/^\uFEFF/, '') : name));
          if (names.some((n) => n === ''))
            throw new InputError('the header row has an empty column name');
          if (new Set(names).size !== names.length)
            throw new InputError('the header row names a column twice');
          continue;
        }
        if (cells.length !== names.length) {
          throw new InputError(
            `row ${line} has ${cells.length} fields, the header has ${names.length}`,
          );
        }
        const row: Row = {};
        for (let i = 0; i < names.length; i++) row[names[i] as string] = cells[i] as string;
        batch.push(row);
        if (batch.length >= batchSize) {
          yield batch;
          batch = [];
        }
      }
    }
    if (batch.length > 0) yield batch;
  } finally {
    if (!finished) {
      parser?.abort();
      stream.destroy();
    }
  }
}

function toValue(value: unknown): Value {
  if (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'number' ||
    typeof value === 'boolean'
  )
    return value;
  return JSON.stringify(value) ?? null;
}

/** Streams JSON Lines: one object per line; blank lines are skipped. */
async function* readJsonLines(
  source: AsyncIterable<string>,
  batchSize: number,
): AsyncGenerator<Row[]> {
  const lines = createInterface({ input: Readable.from(source), crlfDelay: Infinity });
  let batch: Row[] = [];
  let number = 0;
  for await (const text of lines) {
    number++;
    if (text.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new InputError(`line ${number} is not valid JSON`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new InputError(`line ${number} is not a JSON object`);
    }
    const row: Row = {};
    for (const [key, value] of Object.entries(parsed)) row[key] = toValue(value);
    batch.push(row);
    if (batch.length >= batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** Parses text (a file's chunks, in order) into batches of rows. */
export function parseRows(
  source: AsyncIterable<string>,
  format: InputFormat,
  delimiter: string,
  batchSize: number,
): AsyncGenerator<Row[]> {
  return format === 'jsonl'
    ? readJsonLines(source, batchSize)
    : readCsv(source, delimiter, batchSize);
}

/** Streams a file's text in large chunks. */
export function fileText(path: string): AsyncIterable<string> {
  return createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 18 });
}

export function readRows(
  path: string,
  format: InputFormat,
  delimiter: string,
  batchSize: number,
): AsyncGenerator<Row[]> {
  return parseRows(fileText(path), format, delimiter, batchSize);
}
