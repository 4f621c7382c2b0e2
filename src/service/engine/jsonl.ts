import { characters, InputError, type Limits } from './read-limits.ts';
import { setField, type Batch, type Row, type Value } from './values.ts';

const LF = 0x0a;

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

/**
 * Splits chunks into lines as readline does ('\n', '\r\n' or a lone '\r' ends one), but
 * refuses a line as soon as it passes the limit: readline buffers a whole line first.
 */
async function* linesOf(
  source: AsyncIterable<string>,
  maxChars: number,
  signal: AbortSignal | undefined,
): AsyncGenerator<string[]> {
  const BREAK = /\r\n|\r|\n/g;
  let parts: string[] = [];
  let partsLength = 0;
  let number = 0;
  let skipLf = false;
  const tooLong = (): InputError =>
    new InputError(
      `line ${number + 1} is longer than ${characters(maxChars)} (the limit for one record)`,
    );
  signal?.throwIfAborted();
  for await (const chunk of source) {
    signal?.throwIfAborted();
    if (chunk.length === 0) continue;
    let start = skipLf && chunk.charCodeAt(0) === LF ? 1 : 0;
    skipLf = false;
    const lines: string[] = [];
    BREAK.lastIndex = start;
    for (let m = BREAK.exec(chunk); m; m = BREAK.exec(chunk)) {
      const piece = chunk.slice(start, m.index);
      if (partsLength + piece.length > maxChars) throw tooLong();
      lines.push(parts.length > 0 ? parts.join('') + piece : piece);
      number++;
      parts = [];
      partsLength = 0;
      start = m.index + m[0].length;
      // A '\r' that ends the chunk and a '\n' that begins the next are one line end.
      if (start === chunk.length && m[0] === '\r') skipLf = true;
    }
    if (start < chunk.length) {
      parts.push(chunk.slice(start));
      partsLength += chunk.length - start;
      if (partsLength > maxChars) throw tooLong();
    }
    if (lines.length > 0) yield lines;
  }
  if (parts.length > 0) yield [parts.join('')];
}

/** Streams JSON Lines: one object per line; blank lines are skipped. */
export async function* readJsonLines(
  source: AsyncIterable<string>,
  batchSize: number,
  limits: Limits,
  signal: AbortSignal | undefined,
): AsyncGenerator<Batch> {
  let batch: Row[] = [];
  let number = 0;
  for await (const lines of linesOf(source, limits.maxRecordChars, signal)) {
    for (const text of lines) {
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
      for (const [key, value] of Object.entries(parsed)) setField(row, key, toValue(value));
      batch.push(row);
      if (batch.length >= batchSize) {
        yield { objects: batch };
        batch = [];
        signal?.throwIfAborted();
      }
    }
  }
  if (batch.length > 0) yield { objects: batch };
}
