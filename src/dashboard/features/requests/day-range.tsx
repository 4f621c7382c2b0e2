import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { RangeRequest, RequestRange } from '../../../kit/index.ts';
import { StatusBadge } from '../../components/badge.tsx';
import { Button } from '../../components/button.tsx';
import { DataTable, type ColumnDef } from '../../components/data-table.tsx';
import { DayInput, Field, TextInput } from '../../components/fields.tsx';
import { isoToYmd, shiftDay, ymdToIso } from '../../paths.ts';
import { useUrlDraft } from '../../shared/url-draft.ts';
import type { ViewChanges } from '../../shared/url-state.ts';
import {
  closeRange,
  openRange,
  RANGE_MAX_DAYS,
  rangeProblem,
  type RangeProblem,
  type RequestsView,
} from './view.ts';
import { requestCellColumns } from './request-cells.tsx';

/** A refused range in words: which days, and why they cannot be listed together. */
export function useRangeProblemText(): (problem: RangeProblem) => string {
  const { t } = useTranslation('requests');
  return (problem) =>
    problem.kind === 'reversed'
      ? t('range.reversed', { from: ymdToIso(problem.from), to: ymdToIso(problem.to) })
      : t('range.tooLong', {
          from: ymdToIso(problem.from),
          to: ymdToIso(problem.to),
          days: problem.days,
          max: RANGE_MAX_DAYS,
        });
}

/**
 * The day shown (‹ date › Today), or the days of a range (From, To), and the switch between
 * them. A range of more than RANGE_MAX_DAYS days, or one that ends before it begins, is
 * refused where it is picked, with a sentence saying why; the URL keeps the last good one.
 */
export function DayControls({
  view,
  onChange,
}: {
  view: RequestsView;
  onChange: (changes: ViewChanges) => void;
}) {
  const { t } = useTranslation('requests');
  const problemText = useRangeProblemText();
  const [refused, setRefused] = useState<RangeProblem>();
  const range = view.range;
  // Each pick builds on the days the fields show, not on the URL, which shows a pick only
  // once its render lands (From then To picked before that must both stay); a refused day
  // stays in its field beside the reason.
  const [fromShown, typeFrom] = useUrlDraft(range ? ymdToIso(range.from) : '');
  const [toShown, typeTo] = useUrlDraft(range ? ymdToIso(range.to) : '');
  const pick = (from: string, to: string) => {
    typeFrom(ymdToIso(from));
    typeTo(ymdToIso(to));
    const problem = rangeProblem(from, to);
    setRefused(problem);
    if (!problem) onChange({ from, to });
  };
  if (!range) {
    return (
      <div className="flex flex-wrap items-end gap-1">
        <Button
          aria-label={t('previousDay')}
          title={t('previousDay')}
          onClick={() => onChange({ date: shiftDay(view.date, -1) })}
        >
          ‹
        </Button>
        <Field label={t('date')}>
          <DayInput day={view.date} onDay={(date) => onChange({ date })} />
        </Field>
        <Button
          aria-label={t('nextDay')}
          title={t('nextDay')}
          onClick={() => onChange({ date: shiftDay(view.date, 1) })}
        >
          ›
        </Button>
        <Button onClick={() => onChange({ date: undefined })}>{t('today')}</Button>
        <Button
          variant="ghost"
          data-testid="open-range"
          onClick={() => {
            setRefused(undefined);
            onChange(openRange(view.date, shiftDay));
          }}
        >
          {t('range.open')}
        </Button>
      </div>
    );
  }
  return (
    <fieldset className="flex flex-col gap-1" data-testid="range-picker">
      <legend className="sr-only">{t('range.legend', { max: RANGE_MAX_DAYS })}</legend>
      <div className="flex flex-wrap items-end gap-1">
        <Field label={t('range.from')}>
          <TextInput
            type="date"
            value={fromShown}
            onChange={(e) => e.target.value && pick(isoToYmd(e.target.value), isoToYmd(toShown))}
          />
        </Field>
        <Field label={t('range.to')}>
          <TextInput
            type="date"
            value={toShown}
            onChange={(e) => e.target.value && pick(isoToYmd(fromShown), isoToYmd(e.target.value))}
          />
        </Field>
        <Button
          variant="ghost"
          data-testid="close-range"
          onClick={() => {
            setRefused(undefined);
            onChange(closeRange(view));
          }}
        >
          {t('range.close')}
        </Button>
      </div>
      <p className="text-xs text-slate-600 dark:text-slate-300">
        {t('range.hint', { max: RANGE_MAX_DAYS })}
      </p>
      {refused ? (
        <p
          role="alert"
          data-testid="range-refused"
          className="max-w-md text-sm text-red-800 dark:text-red-300"
        >
          {problemText(refused)}
        </p>
      ) : null}
    </fieldset>
  );
}

/**
 * What a range holds: its total (exact, or plainly approximate naming the days the index
 * does not hold whole), its count per status in the service's words, and per day.
 */
export function RangeSummary({ range }: { range: RequestRange }) {
  const { t, i18n } = useTranslation('requests');
  const partial = range.days.filter((d) => d.state !== 'complete');
  const list = (items: readonly string[]) =>
    new Intl.ListFormat(i18n.language, { type: 'conjunction' }).format(items);
  const span = { from: ymdToIso(range.from), to: ymdToIso(range.to) };
  return (
    <section
      aria-labelledby="range-total"
      data-testid="range-summary"
      data-exact={range.exact}
      className="mb-3 flex flex-col gap-2 rounded-lg border border-slate-200 bg-white p-3 text-sm dark:border-slate-800 dark:bg-slate-900"
    >
      <h2 id="range-total" className="font-semibold" data-testid="range-total">
        {/* A day is not broken at its hyphens on a phone. */}
        <Trans
          t={t}
          i18nKey={range.exact ? 'range.totalExact' : 'range.totalApproximate'}
          values={{ count: range.total, ...span }}
          components={{ day: <span className="whitespace-nowrap" /> }}
        />
      </h2>
      {!range.exact ? (
        <p data-testid="range-partial" className="text-amber-900 dark:text-amber-200">
          {t('range.partialDays', {
            count: partial.length,
            days: list(partial.map((d) => ymdToIso(d.day))),
          })}
        </p>
      ) : null}
      {range.statuses.length > 0 ? (
        <ul className="flex flex-wrap gap-x-4 gap-y-1" aria-label={t('range.byStatus')}>
          {range.statuses.map((s) => (
            <li
              key={s.status}
              className="flex items-center gap-1.5"
              data-testid="range-status"
              data-status={s.status}
            >
              <StatusBadge status={s.status} />
              <span className="tabular-nums">{t('range.count', { count: s.count })}</span>
            </li>
          ))}
        </ul>
      ) : null}
      <details>
        <summary className="cursor-pointer">{t('range.perDay')}</summary>
        <ul className="mt-1 grid grid-cols-[repeat(auto-fill,minmax(11rem,1fr))] gap-x-4 gap-y-0.5">
          {range.days.map((d) => (
            <li key={d.day} data-testid="range-day" data-day={d.day} className="tabular-nums">
              {t(d.state === 'complete' ? 'range.dayCount' : 'range.dayCountPartial', {
                day: ymdToIso(d.day),
                count: d.count,
              })}
            </li>
          ))}
        </ul>
      </details>
    </section>
  );
}

/** The range's requests, each with its day; a link to its detail, which reads any day. */
export function RangeTable({ rows, empty }: { rows: readonly RangeRequest[]; empty: string }) {
  const { t } = useTranslation('requests');
  const shared = requestCellColumns<RangeRequest>(t);
  const columns: ColumnDef<RangeRequest>[] = [
    shared.id,
    {
      id: 'day',
      header: t('columns.day'),
      cellClassName: 'text-xs whitespace-nowrap tabular-nums',
      // The request id names its day: a phone can do without this column.
      priority: 'medium',
      cell: (row) => ymdToIso(row.day),
    },
    {
      id: 'pipeline',
      header: t('columns.pipeline'),
      cellClassName: 'font-mono text-xs',
      priority: 'medium',
      cell: (row) => row.pipelineId,
    },
    shared.status,
    shared.stage,
    shared.begin,
  ];
  return (
    <div className="overflow-auto rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
      <DataTable
        columns={columns}
        rows={rows}
        rowKey={(row) => row.requestId}
        rowProps={(row) => ({ 'data-request': row.requestId, 'data-day': row.day })}
        testId="range-table"
        empty={empty}
      />
    </div>
  );
}
