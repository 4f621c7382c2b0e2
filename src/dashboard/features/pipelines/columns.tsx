import type { TFunction } from 'i18next';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { notify } from '../../core/notices.ts';
import { runmodeState, type Pipeline } from '../../../kit/index.ts';
import { useForbidden } from '../../core/auth.ts';
import { RunmodeBadge } from '../../components/badge.tsx';
import { Button } from '../../components/button.tsx';
import { reasonOnFocus } from '../../components/focus-reason.tsx';
import type { ColumnDef } from '../../components/data-table.tsx';
import { ServiceTime } from '../../components/time.tsx';
import { paths } from '../../paths.ts';
import { useSetRunmode } from '../../shared/queries.ts';
import { useServiceDown } from '../../shared/service-down.ts';

/**
 * Asks before a pipeline is suspended (a production service's): given, a suspend opens the
 * page's dialog through it instead of suspending at once. Resuming never asks.
 */
export type ConfirmSuspend = (pipeline: Pipeline) => void;

/** The two changes of a Runmode, by their operations' names. */
const RUNMODE_ACTIONS = ['resume', 'suspend'] as const;

/**
 * Resume and Suspend as two buttons, for a Runmode whose word the kit does not know: its
 * state cannot be drawn as a switch, and the service decides what each does.
 */
function RunmodeChoice({
  pipeline,
  confirmSuspend,
}: {
  pipeline: Pipeline;
  confirmSuspend: ConfirmSuspend | undefined;
}) {
  const { t } = useTranslation('pipelines');
  const forbidden = useForbidden();
  const setRunmode = useSetRunmode();
  const down = useServiceDown();
  return (
    // One above the other on a phone, where the Actions column needs the width.
    <span className="flex flex-col gap-1 sm:flex-row">
      {RUNMODE_ACTIONS.map((action) => (
        <Button
          key={action}
          size="sm"
          aria-label={t(`toggle.${action}`, { name: pipeline.name })}
          disabledReason={forbidden(action) ?? down?.reason}
          onClick={() =>
            action === 'suspend' && confirmSuspend
              ? confirmSuspend(pipeline)
              : setRunmode.mutate({ id: pipeline.id, run: action === 'resume' })
          }
        >
          {t(`runmodeAction.${action}`)}
        </Button>
      ))}
    </span>
  );
}

/** Resume and suspend as one switch, for a Runmode the kit reads as running or not. */
function RunmodeSwitch({
  pipeline,
  running,
  confirmSuspend,
}: {
  pipeline: Pipeline;
  running: boolean;
  confirmSuspend: ConfirmSuspend | undefined;
}) {
  const { t } = useTranslation('pipelines');
  const forbidden = useForbidden();
  const setRunmode = useSetRunmode();
  const down = useServiceDown();
  const reason = forbidden(running ? 'suspend' : 'resume') ?? down?.reason;
  const reasonId = useId();
  const label = t(running ? 'toggle.suspend' : 'toggle.resume', { name: pipeline.name });
  return (
    <>
      <button
        type="button"
        role="switch"
        aria-checked={running}
        aria-label={label}
        title={reason ?? label}
        // Focusable while refused, so that keyboard users reach the reason it is described by.
        aria-disabled={reason !== undefined}
        aria-describedby={reason === undefined ? undefined : reasonId}
        {...reasonOnFocus(reason)}
        onClick={() => {
          if (reason !== undefined) notify({ kind: 'info', text: reason });
          else if (running && confirmSuspend) confirmSuspend(pipeline);
          else setRunmode.mutate({ id: pipeline.id, run: !running });
        }}
        className={`relative inline-flex h-5 w-9 shrink-0 items-center rounded-full transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 aria-disabled:cursor-not-allowed aria-disabled:opacity-50 ${
          running ? 'bg-emerald-600' : 'bg-slate-400 dark:bg-slate-600'
        }`}
      >
        <span
          className={`inline-block size-4 rounded-full bg-white shadow transition-transform ${running ? 'translate-x-4.5' : 'translate-x-0.5'}`}
        />
      </button>
      {reason === undefined ? null : (
        <span id={reasonId} className="sr-only">
          {reason}
        </span>
      )}
    </>
  );
}

// Dates may wrap (date, then time and zone): on one line the two of them pushed the
// actions off a desktop screen.
const DATE = 'min-w-24 text-xs break-keep text-slate-600 dark:text-slate-400';

/** The pipelines table's columns; the dialogs they open belong to the page. */
export function pipelineColumns({
  t,
  execReason,
  cacheReason,
  onExec,
  onClearCache,
  confirmSuspend,
}: {
  t: TFunction<'pipelines'>;
  execReason: string | undefined;
  cacheReason: string | undefined;
  onExec: (pipeline: Pipeline) => void;
  onClearCache: (pipeline: Pipeline) => void;
  confirmSuspend?: ConfirmSuspend | undefined;
}): ColumnDef<Pipeline>[] {
  const columns: ColumnDef<Pipeline>[] = [
    // On a phone: name, Runmode switch and actions; the rest waits for a wider screen.
    {
      id: 'id',
      header: t('columns.id'),
      cellClassName: 'font-mono text-xs',
      priority: 'medium',
      cell: (p) => p.id,
    },
    // A name may break anywhere, so that one long word cannot push the actions off a phone;
    // the column's least width keeps ordinary words ("Customer") whole there.
    {
      id: 'name',
      header: t('columns.name'),
      cellClassName: 'min-w-24 font-medium wrap-anywhere',
      cell: (p) => p.name,
    },
    {
      id: 'runmode',
      header: t('columns.runmode'),
      cell: (p) => {
        // A word the switch cannot draw is shown on phones too, under its two buttons.
        const state = runmodeState(p.runmode);
        const unknown = state === 'unknown';
        return (
          <div className={`flex items-center gap-2 ${unknown ? 'flex-wrap' : ''}`}>
            {unknown ? (
              <RunmodeChoice pipeline={p} confirmSuspend={confirmSuspend} />
            ) : (
              <RunmodeSwitch
                pipeline={p}
                running={state === 'run'}
                confirmSuspend={confirmSuspend}
              />
            )}
            <span className={`whitespace-nowrap ${unknown ? '' : 'hidden sm:inline'}`}>
              <RunmodeBadge runmode={p.runmode} />
            </span>
          </div>
        );
      },
    },
    {
      id: 'created',
      header: t('columns.created'),
      cellClassName: DATE,
      priority: 'low',
      cell: (p) => <ServiceTime stamp={p.createdate} />,
    },
    {
      id: 'updated',
      header: t('columns.updated'),
      cellClassName: DATE,
      priority: 'low',
      cell: (p) => <ServiceTime stamp={p.updatedate} />,
    },
    {
      id: 'description',
      header: t('columns.description'),
      cellClassName: 'max-w-md text-slate-700 dark:text-slate-300',
      priority: 'medium',
      cell: (p) => p.description,
    },
    {
      id: 'args',
      header: t('columns.args'),
      cellClassName: 'font-mono text-xs whitespace-nowrap',
      priority: 'medium',
      cell: (p) =>
        p.args.length === 0
          ? t('noArgs')
          : p.args.map((a) => (
              <div key={a.name}>
                {a.name} = {a.value}
              </div>
            )),
    },
    {
      id: 'actions',
      header: t('columns.actions'),
      cell: (p) => (
        <div className="flex flex-wrap gap-1.5">
          <Button size="sm" variant="primary" disabledReason={execReason} onClick={() => onExec(p)}>
            {t('execute')}
          </Button>
          <Button size="sm" disabledReason={cacheReason} onClick={() => onClearCache(p)}>
            {t('clearCache')}
          </Button>
          <Link
            to={paths.requests({ pipeline: p.id })}
            className="inline-flex items-center rounded-md px-2 py-1 text-xs font-medium whitespace-nowrap text-teal-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-teal-600 dark:text-teal-400"
          >
            {t('requestsToday')}
          </Link>
          <Link
            to={paths.trends(p.id)}
            aria-label={t('trendsOf', { name: p.name })}
            className="inline-flex items-center rounded-md px-2 py-1 text-xs font-medium whitespace-nowrap text-teal-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-teal-600 dark:text-teal-400"
          >
            {t('trends')}
          </Link>
        </div>
      ),
    },
  ];
  // Rows grow with a long description or many Args; every cell starts at the row's top.
  return columns.map((column) => ({
    ...column,
    className: column.className ? `align-top ${column.className}` : 'align-top',
  }));
}
