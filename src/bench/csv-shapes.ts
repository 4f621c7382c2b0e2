import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileText, InputError, parseRows } from '../service/engine/readers.ts';
import { batchLength } from '../service/engine/values.ts';

// The CSV reader's time should follow the size of a file, not its shape: a file that is
// one long record, or that opens a quote and never closes it, should read about as fast as
// a file of short rows of the same size (before the framer, they took quadratic time).

export interface CsvShapesResult {
  normalSeconds: number;
  longLineSeconds: number;
  unterminatedSeconds: number;
  /** longLineSeconds / normalSeconds; the goal is about 1 or less. */
  ratioLongLine: number;
  /** unterminatedSeconds / normalSeconds; the goal is about 1 or less. */
  ratioUnterminated: number;
}

const HEADER = 'id,name,amount,qty,created\n';

/** Rows without quotes, about `chars` characters of them in all. */
function* rows(chars: number): Generator<string> {
  let written = 0;
  let chunk = '';
  for (let i = 0; written < chars; i++) {
    const line = `${i},name ${i % 1000},${((i * 7919) % 100000) / 100},${i % 17},2026-11-${String((i % 28) + 1).padStart(2, '0')} 10:00:00\n`;
    chunk += line;
    written += line.length;
    if (chunk.length >= 1 << 20) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

async function write(path: string, parts: Iterable<string>): Promise<void> {
  const out = createWriteStream(path);
  for (const part of parts) if (!out.write(part)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

/** Seconds to read the file to its end (or to its error, which must be `expected`). */
async function readSeconds(path: string, maxRecordChars: number, expected?: string) {
  const started = performance.now();
  let count = 0;
  try {
    for await (const batch of parseRows(fileText(path), 'csv', ',', 2000, { maxRecordChars }))
      count += batchLength(batch);
    if (expected) throw new Error(`${path} was read without "${expected}"`);
  } catch (error) {
    if (!(error instanceof InputError) || error.message !== expected) throw error;
  }
  return { seconds: (performance.now() - started) / 1000, count };
}

/**
 * Writes three CSV files of `megabytes` MB into a temporary folder (short rows; one record
 * holding the whole file in a quoted field with commas and line ends; short rows with a
 * quote opened near the start and never closed), reads each with the engine's reader with
 * the record limit raised above the file size, best of two reads, and reports the seconds
 * and the ratios to the file of short rows.
 */
export async function benchCsvShapes(megabytes: number): Promise<CsvShapesResult> {
  const size = Math.round(megabytes * 1_000_000);
  const folder = mkdtempSync(join(tmpdir(), 'bench-csv-shapes-'));
  try {
    const normal = join(folder, 'normal.csv');
    const long = join(folder, 'long-line.csv');
    const open = join(folder, 'unterminated.csv');
    await write(normal, [HEADER, ...rows(size)]);
    await write(long, [HEADER, '1,"', ...rows(size), '",1,1,2026-11-01 10:00:00\n']);
    await write(open, [HEADER, ...rows(100_000), 'x,"', ...rows(size - 100_000)]);
    const limit = size + (1 << 20);
    const best = async (path: string, expected?: string) => {
      const first = await readSeconds(path, limit, expected);
      const second = await readSeconds(path, limit, expected);
      return Math.min(first.seconds, second.seconds);
    };
    const normalSeconds = await best(normal);
    const longLineSeconds = await best(long);
    const unterminatedSeconds = await best(open, 'a quoted field is not terminated');
    return {
      normalSeconds,
      longLineSeconds,
      unterminatedSeconds,
      ratioLongLine: longLineSeconds / normalSeconds,
      ratioUnterminated: unterminatedSeconds / normalSeconds,
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
