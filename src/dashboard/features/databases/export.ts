import { downloadText } from '../../shared/download.ts';
import type { TablePage } from '../../../kit/index.ts';
import { downloadCsv, toCsv as csvOf } from '../../shared/csv.ts';

/** The loaded rows: cells in header order, a SQL NULL as null. */
type Rows = readonly (readonly (string | null)[])[];

/** The loaded rows as CSV, formulas neutralised (see shared/csv.ts). */
export function toCsv(page: TablePage, rows: Rows): string {
  return csvOf(
    page.columns.map((c) => c.name),
    rows,
  );
}

/** The loaded rows as JSON objects; NULL stays null. */
export function toJson(page: TablePage, rows: Rows): string {
  return JSON.stringify(
    rows.map((r) => Object.fromEntries(page.columns.map((c, i) => [c.name, r[i] ?? null]))),
    null,
    2,
  );
}

export function exportCsv(name: string, page: TablePage, rows: Rows): void {
  downloadCsv(
    name,
    page.columns.map((c) => c.name),
    rows,
  );
}

export function exportJson(name: string, page: TablePage, rows: Rows): void {
  downloadText(`${name}.json`, 'application/json', toJson(page, rows));
}

/** The downloads of the loaded rows, each with its button's words (the databases catalogue). */
export const EXPORTS = [
  { label: 'exportCsv', save: exportCsv },
  { label: 'exportJson', save: exportJson },
] as const;
