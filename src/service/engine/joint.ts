import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { quoteIdentifier, type Db, type Statement } from '../db/sqlite.ts';
import { tableColumns } from '../db/catalogue.ts';
import type { JointAction } from '../pipelines/definition.ts';
import { RowCursor, type ColumnRows } from './stage-wire.ts';
import { asNumber, asText, fieldOf, type Row, type Value } from './values.ts';

export class JointError extends Error {
  override readonly name = 'JointError';
}

/** `YYYY-MM-DD`, optionally with a time, fraction and zone, in ISO-8601 or SQL style. */
const TIMESTAMP_SHAPE =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])([ T]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

type ColumnSpec = Extract<JointAction, { table: unknown }>['table']['columns'][number];

function converter(
  column: ColumnSpec,
): (value: Value, rowNumber: number) => string | number | bigint | null {
  const source = column.from ?? column.name;
  const bad = (value: Value, rowNumber: number, what: string): never => {
    throw new JointError(
      `row ${rowNumber}: ${source} value ${JSON.stringify(value)} is not ${what} for column ${column.name} (${column.type})`,
    );
  };
  switch (column.type) {
    case 'INTEGER':
    case 'BIGINT':
      return (value, rowNumber) => {
        if (value === null || value === '') return null;
        if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
        const text = asText(value).trim();
        if (!/^-?\d{1,19}$/.test(text)) return bad(value, rowNumber, 'an integer');
        const big = BigInt(text);
        if (big > 9223372036854775807n || big < -9223372036854775808n)
          return bad(value, rowNumber, 'a 64-bit integer');
        return Number.isSafeInteger(Number(big)) ? Number(big) : big;
      };
    case 'DOUBLE':
      return (value, rowNumber) => {
        if (typeof value === 'number')
          return Number.isFinite(value) ? value : bad(value, rowNumber, 'a finite number');
        if (value === null || value === '') return null;
        const n = asNumber(value);
        return n === undefined ? bad(value, rowNumber, 'a number') : n;
      };
    case 'TIMESTAMP':
      return (value, rowNumber) => {
        if (value === null || value === '') return null;
        const text = asText(value);
        return TIMESTAMP_SHAPE.test(text) ? text : bad(value, rowNumber, 'a timestamp');
      };
    default:
      return (value) => (value === null ? null : asText(value));
  }
}

/**
 * Rows per INSERT statement: one statement of many rows binds them in one call (its values
 * as arguments rather than one array: better-sqlite3 reads an array one element at a time
 * through V8's API, and a million rows went into a table 15–30 % faster spread). Timed alone
 * on the loaded project machine (1,000,000 rows), 100, 250, 500 and 1,000 rows per
 * statement took 0.8–1.7 s each with no clear winner beyond 100. A table of more than 131
 * columns takes fewer rows a statement, to stay within SQLite's limit on its values.
 */
const ROWS_PER_INSERT = 250;
/** SQLITE_MAX_VARIABLE_NUMBER, as better-sqlite3 builds SQLite. */
const MAX_VALUES = 32_766;

type Cell = string | number | bigint | null;
type Converter = (value: Value, rowNumber: number) => Cell;

/** Tables a Joint stages its rows in: internal (`_`), one per table action, `_JOINT_1`… */
export const STAGE_PREFIX = '_JOINT_';

/**
 * Inserts rows into one action table, through a staging table of its own in the same
 * database: the Joint may commit what it has staged between batches, so that others can
 * write meanwhile, while the table itself changes only in the Joint's last transaction
 * (`finish`). A new table is the staging table renamed; rows for one that exists are
 * copied in. Rows wait in a buffer until a whole statement's worth has come, across
 * batches; `flush` writes the rest.
 */
export class TableWriter {
  readonly table: string;
  private readonly stage: string;
  private readonly definition: string;
  private readonly keyed: boolean;
  /** The table did not exist: the staging table has its definition, keys and all. */
  private readonly fresh: boolean;
  private readonly sources: string[];
  private readonly converters: Converter[];
  private readonly many: Statement;
  private readonly one: Statement;
  private readonly pending: Cell[];
  private readonly rowsPerInsert: number;
  private filled = 0;
  written = 0;

  constructor(
    private readonly db: Db,
    private readonly spec: Extract<JointAction, { table: unknown }>['table'],
    stage: string,
  ) {
    this.table = spec.name;
    this.stage = quoteIdentifier(stage);
    const keys = spec.columns.filter((c) => c.key);
    this.keyed = keys.length > 0;
    const columns = spec.columns.map((c) => `${quoteIdentifier(c.name)} ${c.type}`);
    const definition = spec.columns.map(
      (c) =>
        `${quoteIdentifier(c.name)} ${c.type}${keys.length === 1 && c.key ? ' PRIMARY KEY' : ''}`,
    );
    if (keys.length > 1)
      definition.push(`PRIMARY KEY (${keys.map((c) => quoteIdentifier(c.name)).join(', ')})`);
    this.definition = definition.join(', ');
    this.fresh = !this.checkTable();
    // Staged for a table that exists, rows keep their order and wait for its own keys to
    // decide, when copied, which of them stays.
    db.exec(`CREATE TABLE ${this.stage} (${this.fresh ? this.definition : columns.join(', ')})`);
    this.sources = spec.columns.map((c) => c.from ?? c.name);
    this.converters = spec.columns.map(converter);
    // A keyed table takes the newest row for a key, so a file sent again updates it.
    const verb = this.keyed && this.fresh ? 'INSERT OR REPLACE' : 'INSERT';
    const names = spec.columns.map((c) => quoteIdentifier(c.name)).join(', ');
    const placeholders = `(${spec.columns.map(() => '?').join(', ')})`;
    this.rowsPerInsert = Math.max(
      1,
      Math.min(ROWS_PER_INSERT, Math.floor(MAX_VALUES / spec.columns.length)),
    );
    this.one = db.prepare(`${verb} INTO ${this.stage} (${names}) VALUES ${placeholders}`);
    this.many = db.prepare(
      `${verb} INTO ${this.stage} (${names}) VALUES ${Array(this.rowsPerInsert).fill(placeholders).join(', ')}`,
    );
    this.pending = new Array<Cell>(spec.columns.length * this.rowsPerInsert);
  }

  /** True when the table exists with the declared columns; throws when with others. */
  private checkTable(): boolean {
    const existing = tableColumns(this.db, this.spec.name);
    if (existing.length === 0) return false;
    const same =
      existing.length === this.spec.columns.length &&
      existing.every(
        (c, i) => c.name === this.spec.columns[i]?.name && c.type === this.spec.columns[i]?.type,
      );
    if (!same)
      throw new JointError(
        `table ${this.spec.name} exists with other columns than the pipeline declares`,
      );
    return true;
  }

  /**
   * Moves the staged rows into the table, inside the Joint's last transaction: looked at
   * again, since an operator may have dropped it between two batches.
   */
  finish(): void {
    const table = quoteIdentifier(this.table);
    const exists = this.checkTable();
    if (!exists && this.fresh) {
      this.db.exec(`ALTER TABLE ${this.stage} RENAME TO ${table}`);
      return;
    }
    if (!exists) this.db.exec(`CREATE TABLE ${table} (${this.definition})`);
    // Same columns in the same order: `SELECT *` lets SQLite copy whole records where it can.
    this.db.exec(
      this.keyed
        ? `INSERT OR REPLACE INTO ${table} SELECT * FROM ${this.stage} ORDER BY rowid`
        : `INSERT INTO ${table} SELECT * FROM ${this.stage}`,
    );
    this.db.exec(`DROP TABLE ${this.stage}`);
  }

  write(rows: readonly Row[]): void {
    const width = this.sources.length;
    for (const row of rows) {
      const offset = this.next();
      for (let c = 0; c < width; c++) {
        this.pending[offset + c] = (this.converters[c] as Converter)(
          fieldOf(row, this.sources[c] as string),
          this.written,
        );
      }
    }
  }

  /** Encoded rows, read where they lie rather than built as objects first. */
  writeColumns(rows: ColumnRows): void {
    const width = this.sources.length;
    // A source the rows lack reads as null, as fieldOf has it.
    const fields = this.sources.map((source) => rows.keys.indexOf(source));
    const cursor = new RowCursor(rows);
    for (let i = 0; i < cursor.count; i++) {
      cursor.next();
      const offset = this.next();
      for (let c = 0; c < width; c++) {
        const field = fields[c] as number;
        this.pending[offset + c] = (this.converters[c] as Converter)(
          field < 0 ? null : cursor.value(field),
          this.written,
        );
      }
    }
  }

  /** Where the next row goes in the buffer, after writing the buffer when it is full. */
  private next(): number {
    if (this.filled === this.rowsPerInsert) {
      this.many.run(...this.pending);
      this.filled = 0;
    }
    this.written++;
    return this.sources.length * this.filled++;
  }

  /** Writes the rows still in the buffer. */
  flush(): void {
    const width = this.sources.length;
    if (this.filled === this.rowsPerInsert) this.many.run(...this.pending);
    else
      for (let r = 0; r < this.filled; r++)
        this.one.run(...this.pending.slice(r * width, (r + 1) * width));
    this.filled = 0;
  }
}

/** Drops what a Joint staged and did not finish (a rollback, or a crash before it). */
export function dropStagedTables(db: Db): void {
  const names = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, ?) = ?")
    .pluck()
    .all(STAGE_PREFIX.length, STAGE_PREFIX) as string[];
  for (const name of names) db.exec(`DROP TABLE ${quoteIdentifier(name)}`);
}

function csvCell(value: Value): string {
  const text = asText(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Writes rows to a file as CSV (header from the first row) or JSON Lines. */
export class FileWriter {
  private readonly stream: WriteStream;
  private columns: string[] | undefined;
  private failure: Error | undefined;
  written = 0;

  constructor(
    readonly path: string,
    private readonly format: 'csv' | 'jsonl',
  ) {
    this.stream = createWriteStream(path, { encoding: 'utf8' });
    // Kept and thrown from the next write or close, where the Joint can turn it into an Error.
    this.stream.on('error', (error) => (this.failure ??= error));
  }

  async write(rows: readonly Row[]): Promise<void> {
    if (this.failure) throw this.failure;
    let text = '';
    for (const row of rows) {
      if (this.format === 'jsonl') {
        text += `${JSON.stringify(row)}\n`;
      } else {
        if (!this.columns) {
          this.columns = Object.keys(row);
          text += `${this.columns.map((c) => csvCell(c)).join(',')}\n`;
        }
        text += `${this.columns.map((c) => csvCell(fieldOf(row, c))).join(',')}\n`;
      }
    }
    this.written += rows.length;
    if (text && !this.stream.write(text)) await once(this.stream, 'drain');
  }

  async close(): Promise<void> {
    if (this.failure) throw this.failure;
    this.stream.end();
    await once(this.stream, 'finish');
  }

  destroy(): void {
    this.stream.destroy();
  }
}
