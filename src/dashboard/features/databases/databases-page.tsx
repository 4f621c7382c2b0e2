import { useTranslation } from 'react-i18next';
import { Link, Navigate, useNavigate, useParams } from 'react-router';
import { DataTable } from '../../components/data-table.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { PageHeader, SearchField } from '../../components/fields.tsx';
import { Pager } from '../../components/pager.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { paths, type TableListQuery } from '../../paths.ts';
import { TABLES_PER_PAGE, useRowCounts, useTables } from './queries.ts';
import { tableListColumns } from './columns.tsx';
import { TableView } from './table-view.tsx';
import { DATABASES, filterTables, readDatabaseView } from './view.ts';
import { withParams } from '../../shared/url-state.ts';
import { useSearchChanges } from '../../shared/search-changes.ts';

export function DatabasesPage() {
  const { t } = useTranslation('databases');
  const { database: param } = useParams();
  const [search, changeSearch] = useSearchChanges();
  const navigate = useNavigate();
  const view = readDatabaseView(param, search);
  const { database, table } = view;
  const tables = useTables(database ?? 'system', view.listIndex);
  const names = filterTables(tables.data?.tables ?? [], view.filter);
  const counts = useRowCounts(database ?? 'system', names);
  if (!database) return <Navigate to={paths.database('system')} replace />;
  const info = tables.data?.info;
  const list: TableListQuery = { listIndex: view.listIndex, filter: view.filter || undefined };
  const setList = (changes: TableListQuery) =>
    // Typing a filter is not worth a history entry per key; paging is.
    changeSearch((now) => withParams(now, { ...changes }), { replace: 'filter' in changes });

  return (
    <>
      <PageHeader title={t('title')}>
        <nav
          aria-label={t('title')}
          className="flex gap-1 rounded-lg bg-slate-100 p-1 dark:bg-slate-800"
        >
          {DATABASES.map((d) => (
            <Link
              key={d}
              to={paths.database(d)}
              aria-current={d === database ? 'page' : undefined}
              className={`rounded-md px-3 py-1 text-sm font-medium focus-visible:outline-2 focus-visible:outline-teal-600 ${
                d === database
                  ? 'bg-white shadow dark:bg-slate-700'
                  : 'text-slate-600 hover:text-slate-900 dark:text-slate-300'
              }`}
            >
              {t(`databases.${d}`)}
            </Link>
          ))}
        </nav>
      </PageHeader>
      <div className="grid gap-4 lg:grid-cols-[18rem_minmax(0,1fr)]">
        <aside aria-label={t('tables')} className="flex flex-col gap-2">
          <SearchField
            label={t('filterTables')}
            value={view.filter}
            onText={(filter) => setList({ filter })}
          />
          {tables.error ? <ErrorView error={tables.error} /> : null}
          {tables.isPending ? (
            <Spinner />
          ) : (
            <div className="max-h-[60vh] overflow-auto rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
              <DataTable
                columns={tableListColumns(t, database, table, list)}
                rows={names.map((name, i) => ({ name, rows: counts[i]?.data ?? undefined }))}
                rowKey={(row) => row.name}
                testId="table-list"
                empty={t('noTables')}
                density="compact"
              />
            </div>
          )}
          {info ? (
            <Pager
              info={info}
              hideWhenSingle
              label={t('tablePages')}
              className="justify-between text-xs"
              onPage={(listIndex) => setList({ listIndex })}
            />
          ) : null}
          <p className="text-xs text-slate-500 dark:text-slate-400">
            {t('tablesPerPage', { n: TABLES_PER_PAGE })}
          </p>
        </aside>
        <section aria-label={table ?? t('pickTable')} className="min-w-0">
          {table ? (
            <TableView
              key={`${database}/${table}`}
              database={database}
              table={table}
              index={view.index}
              size={view.size}
              filter={view.rows}
              sort={view.sort}
              onView={(changes) =>
                // Typing a filter is not worth a history entry per key; paging and sorting are.
                changeSearch((now) => withParams(now, changes), { replace: 'rows' in changes })
              }
              onChanged={() => void navigate(paths.database(database, undefined, {}, list))}
            />
          ) : (
            <p className="rounded-lg border border-dashed border-slate-300 p-8 text-center text-sm text-slate-500 dark:text-slate-400 dark:border-slate-700">
              {t('pickTable')}
            </p>
          )}
        </section>
      </div>
    </>
  );
}
