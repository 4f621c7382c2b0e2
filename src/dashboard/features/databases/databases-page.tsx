import { useState } from 'react';
import { Link, Navigate, useNavigate, useParams, useSearchParams } from 'react-router';
import type { DatabaseName } from '../../../kit/index.ts';
import { Button } from '../../components/button.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { PageHeader, TextInput } from '../../components/fields.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { paths } from '../../paths.ts';
import { TABLES_PER_PAGE, useRowCounts, useTables } from './queries.ts';
import { strings } from './strings.ts';
import { TableView } from './table-view.tsx';
import { pageSizeFrom } from '../../app/preferences.ts';

const DATABASES: readonly DatabaseName[] = ['system', 'status', 'action'];

export function DatabasesPage() {
  const { database: param } = useParams();
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const [tableFilter, setTableFilter] = useState('');
  const [tablesIndex, setTablesIndex] = useState(0);
  const database = DATABASES.find((d) => d === param);
  const table = search.get('table') ?? undefined;
  const index = Math.max(0, Number.parseInt(search.get('index') ?? '0', 10) || 0);

  const size = pageSizeFrom(search.get('size'), 100);
  const tables = useTables(database ?? 'system', tablesIndex);
  const names = (tables.data?.tables ?? []).filter((t) =>
    t.toLowerCase().includes(tableFilter.trim().toLowerCase()),
  );
  const counts = useRowCounts(database ?? 'system', names);
  if (!database) return <Navigate to={paths.database('system')} replace />;
  const info = tables.data?.info;

  return (
    <>
      <PageHeader title={strings.title}>
        <nav
          aria-label={strings.title}
          className="flex gap-1 rounded-lg bg-slate-100 p-1 dark:bg-slate-800"
        >
          {DATABASES.map((d) => (
            <Link
              key={d}
              to={paths.database(d)}
              onClick={() => setTablesIndex(0)}
              aria-current={d === database ? 'page' : undefined}
              className={`rounded-md px-3 py-1 text-sm font-medium focus-visible:outline-2 focus-visible:outline-teal-600 ${
                d === database
                  ? 'bg-white shadow dark:bg-slate-700'
                  : 'text-slate-600 hover:text-slate-900 dark:text-slate-300'
              }`}
            >
              {strings.databases[d]}
            </Link>
          ))}
        </nav>
      </PageHeader>
      <div className="grid gap-4 lg:grid-cols-[18rem_minmax(0,1fr)]">
        <aside aria-label={strings.tables} className="flex flex-col gap-2">
          <label className="flex flex-col gap-1 text-sm">
            <span className="font-medium">{strings.filterTables}</span>
            <TextInput
              type="search"
              value={tableFilter}
              onChange={(e) => setTableFilter(e.target.value)}
            />
          </label>
          {tables.error ? <ErrorView error={tables.error} /> : null}
          {tables.isPending ? (
            <Spinner />
          ) : (
            <ul
              className="max-h-[60vh] overflow-auto rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900"
              data-testid="table-list"
            >
              {names.map((name, i) => (
                <li key={name}>
                  <Link
                    to={paths.database(database, name)}
                    aria-current={name === table ? 'true' : undefined}
                    className={`flex items-center justify-between gap-2 border-b border-slate-100 px-3 py-1.5 text-sm dark:border-slate-800 ${
                      name === table
                        ? 'bg-teal-50 font-semibold dark:bg-teal-950'
                        : 'hover:bg-slate-50 dark:hover:bg-slate-800'
                    }`}
                  >
                    <span className="truncate font-mono text-xs">{name}</span>
                    <span className="shrink-0 text-xs text-slate-500 dark:text-slate-400">
                      {strings.rows(counts[i]?.data ?? undefined)}
                    </span>
                  </Link>
                </li>
              ))}
              {names.length === 0 ? (
                <li className="px-3 py-4 text-sm text-slate-500">{strings.noTables}</li>
              ) : null}
            </ul>
          )}
          {info && (info.prev >= 0 || info.next >= 0) ? (
            <div className="flex items-center justify-between text-xs">
              <Button
                size="sm"
                disabled={info.prev < 0}
                onClick={() => setTablesIndex(Math.max(0, info.prev))}
              >
                ‹ {strings.previous}
              </Button>
              <span>{strings.range(info.index + 1, info.index + info.count, info.total)}</span>
              <Button size="sm" disabled={info.next < 0} onClick={() => setTablesIndex(info.next)}>
                {strings.next} ›
              </Button>
            </div>
          ) : null}
          <p className="text-xs text-slate-500">{`${TABLES_PER_PAGE} tables per page`}</p>
        </aside>
        <section aria-label={table ?? strings.pickTable} className="min-w-0">
          {table ? (
            <TableView
              key={`${database}/${table}`}
              database={database}
              table={table}
              index={index}
              size={size}
              onPage={(nextIndex, nextSize) =>
                void navigate(paths.database(database, table, { index: nextIndex, size: nextSize }))
              }
              onChanged={() => void navigate(paths.database(database))}
            />
          ) : (
            <p className="rounded-lg border border-dashed border-slate-300 p-8 text-center text-sm text-slate-500 dark:border-slate-700">
              {strings.pickTable}
            </p>
          )}
        </section>
      </div>
    </>
  );
}
