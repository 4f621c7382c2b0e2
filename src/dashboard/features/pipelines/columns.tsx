import { useId } from 'react';
import { Link } from 'react-router';
import { notify } from '../../app/notices.ts';
import type { Pipeline } from '../../../kit/index.ts';
import { forbiddenReason, useAuth } from '../../app/auth.ts';
import { RunmodeBadge } from '../../components/badge.tsx';
import { Button } from '../../components/button.tsx';
import type { ColumnDef } from '../../components/data-table.tsx';
import { paths } from '../../paths.ts';
import { useSetRunmode } from '../../shared/queries.ts';
import { strings } from './strings.ts';

function RunmodeSwitch({ pipeline }: { pipeline: Pipeline }) {
  const auth = useAuth();
  const setRunmode = useSetRunmode();
  const running = pipeline.runmode === 'run';
  const reason = forbiddenReason(auth, running ? 'suspend' : 'resume');
  const reasonId = useId();
  return (
    <>
      <button
        type="button"
        role="switch"
        aria-checked={running}
        aria-label={strings.toggle(pipeline.name, running)}
        title={reason ?? strings.toggle(pipeline.name, running)}
        // Focusable while refused, so that keyboard users reach the reason it is described by.
        aria-disabled={reason !== undefined}
        aria-describedby={reason === undefined ? undefined : reasonId}
        onClick={() => {
          if (reason === undefined) setRunmode.mutate({ id: pipeline.id, run: !running });
          else notify({ kind: 'info', text: reason });
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

const DATE = 'text-xs whitespace-nowrap text-slate-600 dark:text-slate-400';

/** The pipelines table's columns; the dialogs they open belong to the page. */
export function pipelineColumns({
  execReason,
  cacheReason,
  onExec,
  onClearCache,
}: {
  execReason: string | undefined;
  cacheReason: string | undefined;
  onExec: (pipeline: Pipeline) => void;
  onClearCache: (pipeline: Pipeline) => void;
}): ColumnDef<Pipeline>[] {
  const columns: ColumnDef<Pipeline>[] = [
    // On a phone: name, Runmode switch and actions; the rest waits for a wider screen.
    {
      id: 'id',
      header: strings.columns.id,
      cellClassName: 'font-mono text-xs',
      priority: 'medium',
      cell: (p) => p.id,
    },
    { id: 'name', header: strings.columns.name, cellClassName: 'font-medium', cell: (p) => p.name },
    {
      id: 'runmode',
      header: strings.columns.runmode,
      cell: (p) => (
        <div className="flex items-center gap-2">
          <RunmodeSwitch pipeline={p} />
          <span className="hidden sm:inline">
            <RunmodeBadge runmode={p.runmode} />
          </span>
        </div>
      ),
    },
    {
      id: 'created',
      header: strings.columns.created,
      cellClassName: DATE,
      priority: 'low',
      cell: (p) => p.createdate,
    },
    {
      id: 'updated',
      header: strings.columns.updated,
      cellClassName: DATE,
      priority: 'low',
      cell: (p) => p.updatedate,
    },
    {
      id: 'description',
      header: strings.columns.description,
      cellClassName: 'max-w-md text-slate-700 dark:text-slate-300',
      priority: 'medium',
      cell: (p) => p.description,
    },
    {
      id: 'args',
      header: strings.columns.args,
      cellClassName: 'font-mono text-xs whitespace-nowrap',
      priority: 'medium',
      cell: (p) =>
        p.args.length === 0
          ? strings.noArgs
          : p.args.map((a) => (
              <div key={a.name}>
                {a.name} = {a.value}
              </div>
            )),
    },
    {
      id: 'actions',
      header: strings.columns.actions,
      cell: (p) => (
        <div className="flex flex-wrap gap-1.5">
          <Button size="sm" variant="primary" disabledReason={execReason} onClick={() => onExec(p)}>
            {strings.execute}
          </Button>
          <Button size="sm" disabledReason={cacheReason} onClick={() => onClearCache(p)}>
            {strings.clearCache}
          </Button>
          <Link
            to={paths.requests({ pipeline: p.id })}
            className="inline-flex items-center rounded-md px-2 py-1 text-xs font-medium text-teal-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-teal-600 dark:text-teal-400"
          >
            {strings.requestsToday}
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
