import {
  keepPreviousData,
  queryOptions,
  useMutation,
  useQueries,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import type { DatabaseName, PipelineClient, TablePage } from '../../../kit/index.ts';
import { useClients } from '../../core/auth.ts';

export const databaseKeys = {
  all: ['databases'] as const,
  database: (database: DatabaseName) => [...databaseKeys.all, database] as const,
  /** Every page of a database's list of tables. */
  tableLists: (database: DatabaseName) => [...databaseKeys.database(database), 'tables'] as const,
  tableList: (database: DatabaseName, index: number) =>
    [...databaseKeys.tableLists(database), { index }] as const,
  /** Everything read of one table: its pages of rows and its row count. */
  table: (database: DatabaseName, table: string) =>
    [...databaseKeys.database(database), 'table', table] as const,
  pages: (database: DatabaseName, table: string) =>
    [...databaseKeys.table(database, table), 'page'] as const,
  page: (database: DatabaseName, table: string, index: number, size: number) =>
    [...databaseKeys.pages(database, table), { index, size }] as const,
  count: (database: DatabaseName, table: string) =>
    [...databaseKeys.table(database, table), 'count'] as const,
};

export const TABLES_PER_PAGE = 50;

export const tableListQuery = (client: PipelineClient, database: DatabaseName, index: number) =>
  queryOptions({
    queryKey: databaseKeys.tableList(database, index),
    queryFn: ({ signal }) =>
      client.tables(database, { index, pageSize: TABLES_PER_PAGE }, 'json', { signal }),
    // The previous page stays on screen while paging one database; never across databases,
    // or the row counts would be asked of the old database's tables in the new one (404s).
    placeholderData: (previous, previousQuery) =>
      previousQuery?.queryKey[1] === database ? previous : undefined,
  });

/**
 * How many rows a table holds: its Total, or at least its Bound (the rows a gateway read of
 * a longer table, contract section 12); undefined when the service tells neither.
 */
export interface RowCount {
  readonly count: number;
  /** The table may hold more: `count` rows were read, no total is known. */
  readonly atLeast: boolean;
}

/** What a table page's Info says of the table's size. */
export function rowCountOf(info: TablePage['info']): RowCount | undefined {
  // A Bound says no total is known: it wins over a Total beside it, never claimed exact.
  if (info.bound !== undefined) return { count: info.bound, atLeast: true };
  if (info.total !== undefined) return { count: info.total, atLeast: false };
  return undefined;
}

/** A table's row count, from its Total or Bound (one small call per table). */
export const rowCountQuery = (client: PipelineClient, database: DatabaseName, table: string) =>
  queryOptions({
    queryKey: databaseKeys.count(database, table),
    // null, not undefined: a query's data may not be undefined.
    queryFn: async ({ signal }) =>
      rowCountOf((await client.table(database, table, { pageSize: 1 }, 'json', { signal })).info) ??
      null,
    staleTime: 10_000,
  });

export const tablePageQuery = (
  client: PipelineClient,
  database: DatabaseName,
  table: string,
  index: number,
  size: number,
) =>
  queryOptions({
    queryKey: databaseKeys.page(database, table, index, size),
    // Large pages come as JSON: the kit decodes it many times faster than XML.
    queryFn: ({ signal }) =>
      client.table(database, table, { index, pageSize: size }, 'json', { signal }),
    placeholderData: keepPreviousData,
  });

export function useTables(database: DatabaseName, index: number) {
  return useQuery(tableListQuery(useClients().pipeline, database, index));
}

export function useRowCounts(database: DatabaseName, tables: readonly string[]) {
  const { pipeline } = useClients();
  return useQueries({ queries: tables.map((table) => rowCountQuery(pipeline, database, table)) });
}

export function useTablePage(database: DatabaseName, table: string, index: number, size: number) {
  return useQuery(tablePageQuery(useClients().pipeline, database, table, index, size));
}

/** The keys a delete or drop of an action table makes stale. */
export function tableChangeKeys(table: string, drop: boolean) {
  return drop
    ? // The list loses the table. Its pages are left alone: asking for them again would only
      // answer 404 under the dialog, and nothing shows them once the page moves on.
      [databaseKeys.tableLists('action'), databaseKeys.count('action', table)]
    : // Emptied, the table keeps its place in the list: only its rows and count change.
      [databaseKeys.table('action', table)];
}

export function useTableChange() {
  const { pipeline } = useClients();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ table, drop }: { table: string; drop: boolean }) =>
      drop ? pipeline.dropTable(table) : pipeline.deleteTable(table),
    onSettled: (_data, _error, { table, drop }) =>
      Promise.all(
        tableChangeKeys(table, drop).map((queryKey) => queryClient.invalidateQueries({ queryKey })),
      ),
  });
}
