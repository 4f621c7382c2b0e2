import { createReadStream } from 'node:fs';
import { readCsv } from './csv.ts';
import { readJsonLines } from './jsonl.ts';
import { limitsOf, type ReadOptions } from './read-limits.ts';
import type { Row } from './values.ts';

// The readers' entry: csv.ts (over csv-framer.ts) and jsonl.ts do the reading.
export { charactersParsed } from './csv.ts';
export {
  DEFAULT_MAX_FIELD_CHARS,
  DEFAULT_MAX_RECORD_CHARS,
  InputError,
  type ReadLimits,
  type ReadOptions,
} from './read-limits.ts';

export type InputFormat = 'csv' | 'jsonl';

export function formatOf(filename: string, configured: 'auto' | InputFormat): InputFormat {
  if (configured !== 'auto') return configured;
  return /\.(jsonl|ndjson)$/i.test(filename) ? 'jsonl' : 'csv';
}

/**
 * Parses text (a file's chunks, in order) into batches of rows. Time and memory are linear
 * in the text whatever its shape: a record (or JSON line) longer than `maxRecordChars`, or
 * a CSV field longer than `maxFieldChars`, fails the read as soon as it passes the limit.
 */
export function parseRows(
  source: AsyncIterable<string>,
  format: InputFormat,
  delimiter: string,
  batchSize: number,
  options: ReadOptions = {},
): AsyncGenerator<Row[]> {
  const limits = limitsOf(options);
  return format === 'jsonl'
    ? readJsonLines(source, batchSize, limits, options.signal)
    : readCsv(source, delimiter, batchSize, limits, options.signal);
}

/** Streams a file's text in large chunks. */
export function fileText(path: string): AsyncIterable<string> {
  return createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 18 });
}
