import Papa from 'papaparse';
import { downloadText } from './download.ts';

/**
 * A cell a spreadsheet would read as a formula (OWASP CSV injection): `=`, `+`, `-` and `@`
 * start one, and a leading tab or carriage return hides such a start from a glance. Papa's
 * own default pattern ends in `.*$` without the `s` flag, so it misses a formula followed by
 * a line break; testing only the first character does not. A plain decimal number (a
 * temperature below zero, say) is no formula in any spreadsheet, and prefixing it would turn
 * the number into text for everyone who opens the file, so it is left alone.
 */
const FORMULA_CELL = /^(?![-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$)[=+\-@\t\r]/;

/**
 * Rows as CSV (RFC 4180; null becomes an empty field, as CSV has no null). A cell or column
 * name that could start a formula gets a leading `'` and quotes (Papa's escapeFormulae).
 * Shared by every page that exports what it has loaded (databases, audit).
 */
export function toCsv(
  fields: readonly string[],
  rows: readonly (readonly (string | null)[])[],
): string {
  return Papa.unparse(
    { fields: [...fields], data: rows.map((r) => r.map((v) => v ?? '')) },
    { newline: '\n', escapeFormulae: FORMULA_CELL },
  );
}

export function downloadCsv(
  name: string,
  fields: readonly string[],
  rows: readonly (readonly (string | null)[])[],
): void {
  downloadText(`${name}.csv`, 'text/csv;charset=utf-8', `${toCsv(fields, rows)}\n`);
}
