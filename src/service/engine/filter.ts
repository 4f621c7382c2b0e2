import type { FilterAction, Predicate } from '../pipelines/definition.ts';
import { compileExpression, type ExpressionLimits, type RowWork } from './expression.ts';
import {
  asNumber,
  asText,
  fieldOf,
  setField,
  substitute,
  toObjects,
  type Batch,
  type Row,
  type Value,
} from './values.ts';

/** Reads one field of a row: rows are objects, or cells in the order of their names. */
type FieldReader<R> = (field: string) => (row: R) => Value;

const objectField: FieldReader<Row> = (field) => (row) => fieldOf(row, field);

function cellField(names: readonly string[]): FieldReader<Value[]> {
  return (field) => {
    const index = names.indexOf(field);
    return index < 0 ? () => null : (cells) => cells[index] as Value;
  };
}

function compare(op: string, actual: Value, expected: Value): boolean {
  const a = asNumber(actual);
  const b = asNumber(expected);
  const numeric = a !== undefined && b !== undefined;
  switch (op) {
    case '=':
      return numeric ? a === b : asText(actual) === asText(expected);
    case '!=':
      return numeric ? a !== b : asText(actual) !== asText(expected);
    case '<':
      return numeric ? a < b : asText(actual) < asText(expected);
    case '<=':
      return numeric ? a <= b : asText(actual) <= asText(expected);
    case '>':
      return numeric ? a > b : asText(actual) > asText(expected);
    case '>=':
      return numeric ? a >= b : asText(actual) >= asText(expected);
    case 'contains':
      return asText(actual).includes(asText(expected));
    case 'startsWith':
      return asText(actual).startsWith(asText(expected));
    case 'endsWith':
      return asText(actual).endsWith(asText(expected));
    default:
      return false;
  }
}

function resolve(value: Value, args: Readonly<Record<string, string>>): Value {
  return typeof value === 'string' ? substitute(value, args) : value;
}

function compilePredicate<R>(
  p: Predicate,
  args: Readonly<Record<string, string>>,
  read: FieldReader<R>,
): (row: R) => boolean {
  if ('all' in p) {
    const parts = p.all.map((q) => compilePredicate(q, args, read));
    return (row) => parts.every((t) => t(row));
  }
  if ('any' in p) {
    const parts = p.any.map((q) => compilePredicate(q, args, read));
    return (row) => parts.some((t) => t(row));
  }
  if ('not' in p) {
    const inner = compilePredicate(p.not, args, read);
    return (row) => !inner(row);
  }
  const { field, op } = p;
  const valueOf = read(field);
  if (op === 'isNull') return (row) => valueOf(row) === null;
  if (op === 'notNull') return (row) => valueOf(row) !== null;
  if (op === 'in') {
    const options = (Array.isArray(p.value) ? p.value : [p.value ?? null]).map((v) =>
      resolve(v, args),
    );
    return (row) => {
      const actual = valueOf(row);
      return options.some((o) => compare('=', actual, o));
    };
  }
  if (Array.isArray(p.value)) throw new Error(`keep: ${field} ${op} takes one value, not a list`);
  const expected = resolve(p.value ?? null, args);
  const expectedNumber = asNumber(expected);
  const ordering = ['<', '<=', '>', '>='].includes(op);
  if (expectedNumber !== undefined && ordering) {
    // The common numeric threshold: the expected side is read as a number once.
    const test =
      op === '<'
        ? (n: number) => n < expectedNumber
        : op === '<='
          ? (n: number) => n <= expectedNumber
          : op === '>'
            ? (n: number) => n > expectedNumber
            : (n: number) => n >= expectedNumber;
    return (row) => {
      const actual = valueOf(row);
      if (actual === null) return false;
      const n = asNumber(actual);
      return n === undefined ? compare(op, actual, expected) : test(n);
    };
  }
  return (row) => {
    const actual = valueOf(row);
    if (actual === null) return false;
    return compare(op, actual, expected);
  };
}

export class CastError extends Error {
  override readonly name = 'CastError';
}

type Cast = (value: Value) => Value;

function caster(type: string, field: string): Cast {
  switch (type) {
    case 'string':
      return (v) => (v === null ? null : asText(v));
    case 'integer':
      return (v) => {
        if (v === null || v === '') return null;
        const n = asNumber(v);
        if (n === undefined || !Number.isInteger(n))
          throw new CastError(`cast: ${field} value ${JSON.stringify(v)} is not an integer`);
        return n;
      };
    case 'double':
      return (v) => {
        if (v === null || v === '') return null;
        const n = asNumber(v);
        if (n === undefined)
          throw new CastError(`cast: ${field} value ${JSON.stringify(v)} is not a number`);
        return n;
      };
    case 'boolean':
      return (v) => {
        if (v === null || v === '') return null;
        const text = asText(v).toLowerCase();
        if (['true', '1', 'yes', 'y'].includes(text)) return true;
        if (['false', '0', 'no', 'n'].includes(text)) return false;
        throw new CastError(`cast: ${field} value ${JSON.stringify(v)} is not a boolean`);
      };
    default:
      return (v) => {
        if (v === null || v === '') return null;
        const time = Date.parse(asText(v).replace(' ', 'T'));
        if (Number.isNaN(time))
          throw new CastError(`cast: ${field} value ${JSON.stringify(v)} is not a timestamp`);
        return asText(v);
      };
  }
}

/** One compiled filter action: takes a batch, returns the rows it passes on. */
export interface CompiledFilter {
  readonly describe: string;
  apply(rows: Row[]): Row[];
  /** The same on a Batch: rows as cells stay cells through keep and cast. */
  applyBatch(batch: Batch): Batch;
}

/** Bounds on what `derive` may build; the defaults are those of expression.ts. */
export type FilterOptions = ExpressionLimits;

/** An action that works on objects: rows as cells are built as objects first. */
function onObjects(describe: string, apply: (rows: Row[]) => Row[]): CompiledFilter {
  return { describe, apply, applyBatch: (batch) => ({ objects: apply(toObjects(batch)) }) };
}

export function compileFilter(
  action: FilterAction,
  args: Readonly<Record<string, string>>,
  options: FilterOptions = {},
): CompiledFilter {
  if ('keep' in action) {
    const test = compilePredicate(action.keep, args, objectField);
    // Compiled again for the names of the rows as cells; a reader's batches share them.
    let onCells: { names: readonly string[]; test: (cells: Value[]) => boolean } | undefined;
    return {
      describe: 'keep',
      apply: (rows) => rows.filter(test),
      applyBatch: (batch) => {
        if ('objects' in batch) return { objects: batch.objects.filter(test) };
        const { names } = batch;
        if (onCells?.names !== names)
          onCells = { names, test: compilePredicate(action.keep, args, cellField(names)) };
        return { names, cells: batch.cells.filter(onCells.test) };
      },
    };
  }
  if ('select' in action) {
    const fields = action.select;
    return onObjects(`select ${fields.join(', ')}`, (rows) =>
      rows.map((row) => {
        const out: Row = {};
        for (const f of fields) setField(out, f, fieldOf(row, f));
        return out;
      }),
    );
  }
  if ('rename' in action) {
    const pairs = Object.entries(action.rename);
    return onObjects(`rename ${pairs.map(([a, b]) => `${a}→${b}`).join(', ')}`, (rows) =>
      rows.map((row) => {
        const out: Row = {};
        for (const [key, value] of Object.entries(row)) {
          const renamed = pairs.find(([from]) => from === key);
          setField(out, renamed ? renamed[1] : key, value);
        }
        return out;
      }),
    );
  }
  if ('cast' in action) {
    const fields = Object.keys(action.cast);
    const casts = Object.entries(action.cast).map(([field, type]) => caster(type, field));
    const apply = (rows: Row[]): Row[] => {
      for (const row of rows) {
        for (let c = 0; c < fields.length; c++) {
          const field = fields[c] as string;
          if (Object.hasOwn(row, field))
            setField(row, field, (casts[c] as Cast)(fieldOf(row, field)));
        }
      }
      return rows;
    };
    return {
      describe: `cast ${Object.entries(action.cast)
        .map(([f, t]) => `${f}:${t}`)
        .join(', ')}`,
      apply,
      applyBatch: (batch) => {
        if ('objects' in batch) return { objects: apply(batch.objects) };
        // A field the rows lack is left alone, as an object's missing own property is.
        const indexes: number[] = [];
        const present: Cast[] = [];
        fields.forEach((field, c) => {
          const index = batch.names.indexOf(field);
          if (index < 0) return;
          indexes.push(index);
          present.push(casts[c] as Cast);
        });
        for (const cells of batch.cells) {
          for (let c = 0; c < indexes.length; c++) {
            const index = indexes[c] as number;
            cells[index] = (present[c] as Cast)(cells[index] as Value);
          }
        }
        return batch;
      },
    };
  }
  const derived = Object.entries(action.derive).map(
    ([field, text]) => [field, compileExpression(text, { ...options, field })] as const,
  );
  return onObjects(`derive ${derived.map(([f]) => f).join(', ')}`, (rows) => {
    for (const row of rows) {
      const work: RowWork = { chars: 0 };
      for (const [field, expression] of derived) setField(row, field, expression(row, work));
    }
    return rows;
  });
}
