import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { freshParams } from '../../shared/url-state.ts';
import type { Pipeline } from '../../../kit/index.ts';
import { useForbidden } from '../../core/auth.ts';
import { ScrollX } from '../../components/scroll-x.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { PageHeader, SearchField } from '../../components/fields.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { usePipelines } from '../../shared/queries.ts';
import { useServiceDown } from '../../shared/service-down.ts';
import { AsOf } from '../../shared/service-down-banner.tsx';
import { isProduction } from '../../shared/environment.ts';
import { useCurrentService } from '../../shared/services.ts';
import { CacheDialog } from './cache-dialog.tsx';
import { SuspendDialog } from './suspend-dialog.tsx';
import { ExecDialog } from './exec-dialog.tsx';
import { pipelineColumns } from './columns.tsx';
import { matches } from './filter.ts';
import { useSearchChanges } from '../../shared/search-changes.ts';

export function PipelinesPage() {
  const { t } = useTranslation('pipelines');
  const forbidden = useForbidden();
  const pipelines = usePipelines();
  // A service that is down takes no action: each button says why (the banner says more).
  const down = useServiceDown();
  const [search, changeSearch] = useSearchChanges();
  const filter = search.get('q') ?? '';
  const [execFor, setExecFor] = useState<Pipeline>();
  const [cacheFor, setCacheFor] = useState<Pipeline>();
  const [suspendFor, setSuspendFor] = useState<Pipeline>();
  // On production a suspend stops real work at one click: it is confirmed, with a reason.
  const production = isProduction(useCurrentService());
  const shown = useMemo(
    () => (pipelines.data ?? []).filter((p) => matches(p, filter)),
    [pipelines.data, filter],
  );
  const columns = pipelineColumns({
    t,
    execReason: forbidden('exec') ?? down?.reason,
    cacheReason: forbidden('pipelinecache') ?? down?.reason,
    onExec: setExecFor,
    onClearCache: setCacheFor,
    confirmSuspend: production ? setSuspendFor : undefined,
  });

  return (
    <>
      <PageHeader title={t('title')}>
        <SearchField
          beside
          label={t('filter')}
          value={filter}
          placeholder={t('filterPlaceholder')}
          onText={(q) => changeSearch((now) => freshParams(now, { q }), { replace: true })}
          className="w-64"
        />
      </PageHeader>
      {pipelines.data ? <AsOf updatedAt={pipelines.dataUpdatedAt} /> : null}
      {pipelines.error ? (
        <ErrorView error={pipelines.error} onRetry={() => void pipelines.refetch()} />
      ) : null}
      {/* Nothing read and a failure: the error says it all, not an empty "no pipelines". */}
      {pipelines.data === undefined ? (
        pipelines.isError ? null : (
          <Spinner />
        )
      ) : (
        <ScrollX
          label={t('title')}
          className="rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900"
        >
          <DataTable
            columns={columns}
            rows={shown}
            rowKey={(p) => p.id}
            rowProps={(p) => ({ 'data-pipeline': p.id })}
            testId="pipelines-table"
            empty={t('none')}
          />
        </ScrollX>
      )}
      {execFor ? <ExecDialog pipeline={execFor} onClose={() => setExecFor(undefined)} /> : null}
      {cacheFor ? <CacheDialog pipeline={cacheFor} onClose={() => setCacheFor(undefined)} /> : null}
      {suspendFor ? (
        <SuspendDialog pipeline={suspendFor} onClose={() => setSuspendFor(undefined)} />
      ) : null}
    </>
  );
}
