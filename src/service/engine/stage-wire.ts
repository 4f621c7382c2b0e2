import type { StageName } from '../db/system/pipelines.ts';
import type { StageEvent, StageJob } from './stage-source.ts';
import { setField, type Row, type Value } from './values.ts';

/**
 * A batch of rows on its way between threads. Rows that share their fields in one order (a
 * CSV's always do) go as the field names once and the values in one flat array: cloning
 * that costs the receiving thread less than cloning one object per row.
 */
export type EncodedRows =
  | { readonly keys: readonly string[]; readonly values: readonly Value[] }
  | { readonly rows: readonly Row[] };

export type ToWorker = { kind: 'job'; job: StageJob } | { kind: 'taken' };

export type ToMain =
  | Exclude<StageEvent, { kind: 'rows' }>
  | { kind: 'rows'; rows: EncodedRows; sensorMs: number; filterMs: number }
  | { kind: 'done' }
  | { kind: 'error'; stage: StageName | undefined; message: string; code: string | undefined };

export function encodeRows(rows: readonly Row[]): EncodedRows {
  const first = rows[0];
  if (!first) return { keys: [], values: [] };
  const keys = Object.keys(first);
  const width = keys.length;
  if (width === 0) return { rows };
  const values: Value[] = new Array<Value>(rows.length * width);
  let at = 0;
  for (const row of rows) {
    const own = Object.keys(row);
    if (own.length !== width) return { rows };
    for (let j = 0; j < width; j++) {
      if (own[j] !== keys[j]) return { rows };
      values[at++] = row[keys[j] as string] as Value;
    }
  }
  return { keys, values };
}

export function decodeRows(encoded: EncodedRows): Row[] {
  if ('rows' in encoded) return encoded.rows as Row[];
  const { keys, values } = encoded;
  const width = keys.length;
  if (width === 0) return [];
  const rows: Row[] = new Array<Row>(values.length / width);
  // Plain assignment keeps one hidden class for every row; only `__proto__` needs setField.
  const plain = !keys.includes('__proto__');
  for (let i = 0, at = 0; i < rows.length; i++) {
    const row: Row = {};
    if (plain) for (let j = 0; j < width; j++) row[keys[j] as string] = values[at++] as Value;
    else for (let j = 0; j < width; j++) setField(row, keys[j] as string, values[at++] as Value);
    rows[i] = row;
  }
  return rows;
}
