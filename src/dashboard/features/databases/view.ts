import { DATABASE_NAMES, type DatabaseName } from '../../../kit/index.ts';
import { indexFrom, PAGE_SIZES } from '../../shared/url-state.ts';
import { sortFrom, type Sort } from './rows.ts';

export const DATABASES: readonly DatabaseName[] = DATABASE_NAMES;

/** Rows shown of a table when the URL names no size. */
export const DEFAULT_ROWS = 100;

/**
 * A table's page sizes: the shared ones, then up to the 10,000 rows the service's
 * `pagesize` allows (the rows are virtualized and come as JSON, so a whole big page stays
 * light in the browser).
 */
export const TABLE_PAGE_SIZES: readonly number[] = [...PAGE_SIZES, 5000, 10_000];

/** The size a URL asks for, when it is one of TABLE_PAGE_SIZES; else DEFAULT_ROWS. */
export function tablePageSizeFrom(param: string | null): number {
  const size = Number(param);
  return TABLE_PAGE_SIZES.includes(size) ? size : DEFAULT_ROWS;
}

/** Everything the databases page shows, read from its route and query string. */
export interface DatabaseView {
  readonly database: DatabaseName | undefined;
  readonly listIndex: number;
  readonly filter: string;
  readonly table: string | undefined;
  readonly index: number;
  readonly size: number;
  /** Filter and sort of the loaded rows. */
  readonly rows: string;
  readonly sort: Sort | undefined;
}

/** A change of a table's page, size, row filter (`rows`) or sort (`sort`), as URL values. */
export type RowsViewChange = Readonly<
  Partial<{ index: number; size: number; rows: string; sort: string | undefined }>
>;

export function readDatabaseView(param: string | undefined, search: URLSearchParams): DatabaseView {
  return {
    database: DATABASES.find((d) => d === param),
    listIndex: indexFrom(search.get('listIndex')),
    filter: search.get('filter') ?? '',
    table: search.get('table') || undefined,
    index: indexFrom(search.get('index')),
    size: tablePageSizeFrom(search.get('size')),
    rows: search.get('rows') ?? '',
    sort: sortFrom(search.get('sort')),
  };
}

/** Tables of the listed page whose name holds the filter, case aside. */
export function filterTables(names: readonly string[], filter: string): string[] {
  const needle = filter.trim().toLowerCase();
  return names.filter((name) => name.toLowerCase().includes(needle));
}
