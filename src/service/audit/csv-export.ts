import { Readable } from 'node:stream';
import Papa from 'papaparse';
import { AUDIT_CSV_FIELDS } from '../../kit/audit.ts';
import type { Sql } from '../db/sql.ts';
import {
  auditBatch,
  nextAuditSeq,
  type AuditFilters,
  type ReadAuditEntry,
} from '../db/system/audit.ts';

/** The export's columns: the kit's, and whether the stored entry was cut to its bounds. */
export const CSV_COLUMNS = [...AUDIT_CSV_FIELDS, 'truncated'] as const;

/** Entries read at once: at most 4 KB each, so a batch holds at most about 2 MB. */
const BATCH = 500;

/**
 * A cell a spreadsheet would read as a formula (OWASP CSV injection): `=`, `+`, `-` and `@`
 * start one, and a leading tab or carriage return hides such a start. A plain decimal
 * number is no formula and stays a number (the dashboard's CSV exports follow the same rule).
 */
const FORMULA_CELL = /^(?![-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$)[=+\-@\t\r]/;

function cells(entry: ReadAuditEntry): (string | number)[] {
  return CSV_COLUMNS.map((column) => {
    const value = entry[column];
    if (value === null) return '';
    if (typeof value === 'object') return JSON.stringify(value);
    return typeof value === 'boolean' ? String(value) : value;
  });
}

/** Rows as RFC 4180 CSV lines (CRLF), a formula-like cell prefixed with `'` and quoted. */
function lines(rows: readonly (readonly (string | number)[])[]): string {
  return `${Papa.unparse(rows as (string | number)[][], {
    newline: '\r\n',
    escapeFormulae: FORMULA_CELL,
  })}\r\n`;
}

/**
 * The entries matching the filters, newest first, as CSV with a header line, read in batches
 * as the client takes them: memory holds one batch whatever the range, and the database is
 * free between batches. The range is what existed when the export began.
 */
export function auditCsv(sql: Sql, filters: AuditFilters): Readable {
  async function* chunks(): AsyncGenerator<string> {
    yield lines([[...CSV_COLUMNS]]);
    let before = await nextAuditSeq(sql);
    for (;;) {
      const batch = await auditBatch(sql, filters, before, BATCH);
      if (batch.entries.length > 0) yield lines(batch.entries.map(cells));
      if (batch.last === undefined || batch.entries.length < BATCH) return;
      before = batch.last;
    }
  }
  return Readable.from(chunks(), { objectMode: false });
}
