import type { StageName } from '../db/system/pipelines.ts';
import type { StageEvent, StageJob } from './stage-source.ts';
import { toObjects, type Batch, type Row, type Value } from './values.ts';

/**
 * A batch of rows on its way between threads. Rows that share their fields in one order (a
 * CSV's always do) go as the field names once and their values by column of type: a tag
 * per value, numbers in a Float64Array, and every text joined into one UTF-8 buffer with
 * the lengths (in UTF-16 units, as JavaScript counts them) beside it. Cloning the values one
 * by one (as objects, or as one flat array) cost the receiving thread about a millisecond
 * per 2,000 rows, which is what the worker is there to take off the main thread; with the
 * text as a buffer too, every part of a batch is transferred rather than copied, and the
 * main thread, which passes batches from the reader's thread to the Joint's, never holds
 * their text on its heap.
 */
export type EncodedRows =
  | {
      readonly keys: readonly string[];
      readonly tags: Uint8Array;
      readonly numbers: Float64Array;
      readonly lengths: Uint32Array;
      readonly text: Uint8Array;
    }
  | { readonly rows: readonly Row[] };

const encoder = new TextEncoder();
// A text that begins with U+FEFF keeps it: by default the decoder would drop it as a BOM.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

const NULL = 0;
const FALSE = 1;
const TRUE = 2;
const NUMBER = 3;
const TEXT = 4;

export type ToWorker = { kind: 'job'; job: StageJob } | { kind: 'taken' };

/** A StageEvent with its rows encoded, as it crosses threads. */
export type EncodedEvent =
  | Exclude<StageEvent, { kind: 'rows' }>
  | { kind: 'rows'; rows: EncodedRows; read: number; sensorMs: number; filterMs: number };

export type ToMain =
  | EncodedEvent
  | { kind: 'done' }
  | { kind: 'error'; stage: StageName | undefined; message: string; code: string | undefined };

/** Values written one at a time into the buffers of the column form. */
class ColumnWriter {
  private readonly tags: Uint8Array;
  private readonly numbers: Float64Array;
  private readonly lengths: Uint32Array;
  private readonly texts: string[] = [];
  private at = 0;

  constructor(size: number) {
    this.tags = new Uint8Array(size);
    this.numbers = new Float64Array(size);
    this.lengths = new Uint32Array(size);
  }

  add(value: Value): void {
    const at = this.at++;
    if (typeof value === 'string') {
      this.tags[at] = TEXT;
      this.lengths[at] = value.length;
      this.texts.push(value);
    } else if (typeof value === 'number') {
      this.tags[at] = NUMBER;
      this.numbers[at] = value;
    } else if (value === null) this.tags[at] = NULL;
    else this.tags[at] = value ? TRUE : FALSE;
  }

  finish(keys: readonly string[]): ColumnRows {
    const { tags, numbers, lengths } = this;
    return { keys, tags, numbers, lengths, text: encoder.encode(this.texts.join('')) };
  }
}

export function encodeRows(rows: readonly Row[]): EncodedRows {
  const first = rows[0];
  if (!first) return { rows };
  const keys = Object.keys(first);
  const width = keys.length;
  if (width === 0) return { rows };
  const columns = new ColumnWriter(rows.length * width);
  for (const row of rows) {
    // for…in walks the row's own keys in order without building an array of them per row.
    let j = 0;
    for (const key in row) {
      if (key !== keys[j++]) return { rows };
      columns.add(row[key] as Value);
    }
    if (j !== width) return { rows };
  }
  return columns.finish(keys);
}

/** A batch as it crosses threads: rows as cells always go by column. */
export function encodeBatch(batch: Batch): EncodedRows {
  if ('objects' in batch) return encodeRows(batch.objects);
  const { names, cells } = batch;
  const width = names.length;
  if (cells.length === 0 || width === 0) return { rows: toObjects(batch) };
  const columns = new ColumnWriter(cells.length * width);
  for (const row of cells) for (let j = 0; j < width; j++) columns.add(row[j] as Value);
  return columns.finish(names);
}

export function rowCount(encoded: EncodedRows): number {
  return 'rows' in encoded ? encoded.rows.length : encoded.tags.length / encoded.keys.length;
}

/** The buffers of an encoding, to transfer rather than copy. */
export function transferables(encoded: EncodedRows): ArrayBuffer[] {
  if ('rows' in encoded) return [];
  return [
    encoded.tags.buffer,
    encoded.numbers.buffer,
    encoded.lengths.buffer,
    encoded.text.buffer,
  ] as ArrayBuffer[];
}

/** Rows encoded by column of type (the first form of EncodedRows). */
export type ColumnRows = Exclude<EncodedRows, { rows: unknown }>;

/**
 * Walks encoded rows one at a time without building them as objects: `value(j)` is field
 * `j` (in the order of `keys`) of the current row. The Joint's thread reads table rows so.
 */
export class RowCursor {
  readonly width: number;
  readonly count: number;
  private readonly starts: Uint32Array;
  private base = -1;
  private position = 0;
  private readonly text: string;

  constructor(private readonly rows: ColumnRows) {
    this.width = rows.keys.length;
    this.text = decoder.decode(rows.text);
    this.count = rows.tags.length / this.width;
    this.starts = new Uint32Array(this.width);
  }

  /** Moves to the next row (the first, on the first call). */
  next(): void {
    const { tags, lengths } = this.rows;
    this.base = this.base < 0 ? 0 : this.base + this.width;
    for (let j = 0, at = this.base; j < this.width; j++, at++) {
      this.starts[j] = this.position;
      if (tags[at] === TEXT) this.position += lengths[at] as number;
    }
  }

  value(j: number): Value {
    const at = this.base + j;
    switch (this.rows.tags[at]) {
      case TEXT: {
        const start = this.starts[j] as number;
        return this.text.slice(start, start + (this.rows.lengths[at] as number));
      }
      case NUMBER:
        return this.rows.numbers[at] as number;
      case NULL:
        return null;
      default:
        return this.rows.tags[at] === TRUE;
    }
  }
}

export function decodeRows(encoded: EncodedRows): Row[] {
  if ('rows' in encoded) return encoded.rows as Row[];
  const cursor = new RowCursor(encoded);
  const cells = new Array<Value[]>(cursor.count);
  for (let i = 0; i < cells.length; i++) {
    cursor.next();
    const values = new Array<Value>(cursor.width);
    for (let j = 0; j < cursor.width; j++) values[j] = cursor.value(j);
    cells[i] = values;
  }
  return toObjects({ names: encoded.keys, cells });
}
