import {
  keepPreviousData,
  useMutation,
  useQueries,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import type { DatabaseName } from '../../../kit/index.ts';
import { useClients } from '../../app/auth.ts';

export const databaseKeys = {
  all: ['databases'] as const,
  tables: (database: DatabaseName, index: number) =>
    [...databaseKeys.all, database, 'tables', index] as const,
  table: (database: DatabaseName, table: string) =>
    [...databaseKeys.all, database, 'table', table] as const,
  page: (database: DatabaseName, table: string, index: number, size: number) =>
    [...databaseKeys.table(database, table), 'page', { index, size }] as const,
  count: (database: DatabaseName, table: string) =>
    [...databaseKeys.table(database, table), 'count'] as const,
};

export const TABLES_PER_PAGE = 50;

export function useTables(database: DatabaseName, index: number) {
  const { pipeline } = useClients();
  return useQuery({
    queryKey: databaseKeys.tables(database, index),
    queryFn: () => pipeline.tables(database, { index, pageSize: TABLES_PER_PAGE }),
    placeholderData: keepPreviousData,
  });
}

/** Row counts of the listed tables, from each table's Total (one small call per table). */
export function useRowCounts(database: DatabaseName, tables: readonly string[]) {
  const { pipeline } = useClients();
  return useQueries({
    queries: tables.map((table) => ({
      queryKey: databaseKeys.count(database, table),
      queryFn: async () => (await pipeline.table(database, table, { pageSize: 1 })).info.total,
      staleTime: 10_000,
    })),
  });
}

export function useTablePage(
  database: DatabaseName,
  table: string | undefined,
  index: number,
  size: number,
) {
  const { pipeline } = useClients();
  return useQuery({
    queryKey: databaseKeys.page(database, table ?? '', index, size),
    // Large pages come as JSON: the kit decodes it many times faster than XML.
    queryFn: () => pipeline.table(database, table as string, { index, pageSize: size }, 'json'),
    enabled: table !== undefined,
    placeholderData: keepPreviousData,
  });
}

export function useTableChange() {
  const { pipeline } = useClients();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ table, drop }: { table: string; drop: boolean }) =>
      drop ? pipeline.dropTable(table) : pipeline.deleteTable(table),
    onSettled: (_data, _error, { table, drop }) =>
      queryClient.invalidateQueries({
        queryKey: [...databaseKeys.all, 'action'],
        // A dropped table has nothing left to load; asking would only answer 404 under the dialog.
        predicate: (query) =>
          !(drop && query.queryKey[3] === table && query.queryKey[4] !== 'count'),
      }),
  });
}
