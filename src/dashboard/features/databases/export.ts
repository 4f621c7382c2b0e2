import Papa from 'papaparse';
import { downloadText } from '../../components/download.ts';
import type { TablePage } from '../../../kit/index.ts';

/** The loaded rows as CSV (RFC 4180; NULL becomes an empty field, as CSV has no null). */
export function toCsv(page: TablePage, rows: readonly (readonly (string | null)[])[]): string {
  return Papa.unparse(
    { fields: page.columns.map((c) => c.name), data: rows.map((r) => r.map((v) => v ?? '')) },
    { newline: '\n' },
  );
}

/** The loaded rows as JSON objects; NULL stays null. */
export function toJson(page: TablePage, rows: readonly (readonly (string | null)[])[]): string {
  return JSON.stringify(
    rows.map((r) => Object.fromEntries(page.columns.map((c, i) => [c.name, r[i] ?? null]))),
    null,
    2,
  );
}

export function exportCsv(
  name: string,
  page: TablePage,
  rows: readonly (readonly (string | null)[])[],
): void {
  downloadText(`${name}.csv`, 'text/csv;charset=utf-8', `${toCsv(page, rows)}\n`);
}

export function exportJson(
  name: string,
  page: TablePage,
  rows: readonly (readonly (string | null)[])[],
): void {
  downloadText(`${name}.json`, 'application/json', toJson(page, rows));
}
