import { useMemo, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { JUMP_RULES, type Trends } from '../../../kit/index.ts';
import { useDarkClass } from '../../core/theme.ts';
import { ScrollX } from '../../components/scroll-x.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { Field, Options, PageHeader, UrlSelect } from '../../components/fields.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { paths } from '../../paths.ts';
import { useCurrentService } from '../../shared/services.ts';
import { useSearchChanges } from '../../shared/search-changes.ts';
import { freshParams } from '../../shared/url-state.ts';
import { secondsOf, useZonedFormat } from './fleet-time.ts';
import { useTrends } from './queries.ts';
import { TrendsChart, type TrendSeries } from './trends-chart.tsx';

/** The periods offered; the server takes any from 1 to 31. */
const PERIODS = [7, 14, 30] as const;

/** `days` of the URL when it is one of the periods, else 30. */
function daysFrom(value: string | null): number {
  const n = Number(value);
  return (PERIODS as readonly number[]).includes(n) ? n : 30;
}

function JumpSummary({ trends }: { trends: Trends }) {
  const { t, i18n } = useTranslation('fleet');
  const percent = new Intl.NumberFormat(i18n.resolvedLanguage, {
    style: 'percent',
    maximumFractionDigits: 1,
  });
  const seconds = (ms: number | null) =>
    ms === null ? t('trends.none') : t('seconds', { value: secondsOf(ms) });
  const today = trends.points.at(-1);
  const lines: string[] = [];
  if (trends.jumps.failureRate)
    lines.push(
      t('trends.jumpedRate', {
        today: percent.format(today?.failureRate ?? 0),
        median: percent.format(trends.baseline.failureRate ?? 0),
      }),
    );
  if (trends.jumps.p95)
    lines.push(
      t('trends.jumpedP95', {
        today: seconds(today?.p95Ms ?? null),
        median: seconds(trends.baseline.p95Ms),
      }),
    );
  const jumped = lines.length > 0;
  const noBaseline = trends.baseline.failureRate === null && trends.baseline.p95Ms === null;
  return (
    <div
      role="status"
      data-testid="trends-jump"
      data-jumped={jumped}
      className={`rounded-md px-4 py-2 text-sm ${
        jumped
          ? 'bg-red-50 text-red-900 dark:bg-red-950 dark:text-red-100'
          : 'bg-slate-100 text-slate-800 dark:bg-slate-800 dark:text-slate-100'
      }`}
    >
      {jumped ? (
        lines.map((line) => (
          <p key={line} className="font-medium">
            <span aria-hidden="true">▲ </span>
            {line}
          </p>
        ))
      ) : (
        <p>{noBaseline ? t('trends.noBaseline') : t('trends.noJump')}</p>
      )}
      <p className="mt-1 text-xs opacity-90">{t('jumpRule', JUMP_RULES)}</p>
    </div>
  );
}

const SECTION =
  'min-w-0 rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900';

/** A chart in its box, its title above and a note on how to read it below. */
function ChartSection({
  title,
  note,
  children,
}: {
  title: string;
  note: string;
  children: ReactNode;
}) {
  return (
    <section className={SECTION}>
      <h2 className="mb-3 text-sm font-semibold">{title}</h2>
      {children}
      <p className="mt-2 text-xs text-slate-600 dark:text-slate-400">{note}</p>
    </section>
  );
}

function TrendsBody({ trends, dark }: { trends: Trends; dark: boolean }) {
  const { t, i18n } = useTranslation('fleet');
  const format = useZonedFormat();
  const number = new Intl.NumberFormat(i18n.resolvedLanguage);
  const percent = new Intl.NumberFormat(i18n.resolvedLanguage, {
    style: 'percent',
    maximumFractionDigits: 1,
  });
  const none = t('trends.none');
  const seconds = (ms: number | null) =>
    ms === null ? none : t('seconds', { value: secondsOf(ms) });
  const labels = useMemo(
    () => trends.points.map((p) => format.shortDay(p.day)),
    // The labels follow the days and the language.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [trends.points, i18n.resolvedLanguage],
  );
  const outcomes: TrendSeries[] = useMemo(
    () => [
      {
        label: t('class.failed'),
        values: trends.points.map((p) => (p.watched ? p.counts.failed : null)),
        light: '#b91c1c',
        dark: '#f87171',
      },
      {
        label: t('class.done'),
        values: trends.points.map((p) => (p.watched ? p.counts.done : null)),
        light: '#0f766e',
        dark: '#2dd4bf',
      },
      {
        label: `${t('class.waiting')} · ${t('class.running')} · ${t('class.other')}`,
        values: trends.points.map((p) =>
          p.watched ? p.counts.waiting + p.counts.running + p.counts.other : null,
        ),
        light: '#b45309',
        dark: '#fbbf24',
      },
    ],
    [trends.points, t],
  );
  const durations: TrendSeries[] = useMemo(
    () => [
      {
        label: t('trends.p50'),
        values: trends.points.map((p) => (p.p50Ms === null ? null : p.p50Ms / 1000)),
        light: '#1d4ed8',
        dark: '#60a5fa',
      },
      {
        label: t('trends.p95'),
        values: trends.points.map((p) => (p.p95Ms === null ? null : p.p95Ms / 1000)),
        light: '#6d28d9',
        dark: '#a78bfa',
      },
    ],
    [trends.points, t],
  );
  const known = trends.points.reduce((sum, p) => sum + p.durations, 0);
  const ended = trends.points.reduce((sum, p) => sum + p.counts.failed + p.counts.done, 0);
  // The table's columns after the day's; the last one has no gap on its right.
  const columns: { header: string; cell: (p: Trends['points'][number]) => string }[] = [
    { header: t('trends.requestsColumn'), cell: (p) => number.format(p.counts.total) },
    { header: t('trends.failedColumn'), cell: (p) => number.format(p.counts.failed) },
    {
      header: t('trends.rateColumn'),
      cell: (p) => (p.failureRate === null ? none : percent.format(p.failureRate)),
    },
    { header: t('trends.p50'), cell: (p) => seconds(p.p50Ms) },
    { header: t('trends.p95'), cell: (p) => seconds(p.p95Ms) },
  ];
  const charts = [
    {
      title: t('trends.outcomes'),
      note: t('trends.rateDefinition'),
      series: outcomes,
      yLabel: t('trends.countAxis'),
      testId: 'trends-outcomes',
    },
    {
      title: t('trends.durations'),
      note: t('trends.durationNote', { known, total: ended }),
      series: durations,
      yLabel: t('trends.secondsAxis'),
      testId: 'trends-durations',
    },
  ];
  const valueClass = (i: number, more?: string) =>
    ['py-1', i < columns.length - 1 && 'pr-2', 'text-right', more].filter(Boolean).join(' ');
  return (
    <div className="flex flex-col gap-5">
      <JumpSummary trends={trends} />
      <div className="grid gap-5 xl:grid-cols-2">
        {charts.map((chart) => (
          <ChartSection key={chart.testId} title={chart.title} note={chart.note}>
            <TrendsChart
              days={labels}
              series={chart.series}
              yLabel={chart.yLabel}
              dark={dark}
              testId={chart.testId}
            />
          </ChartSection>
        ))}
      </div>
      <section className={SECTION}>
        <h2 className="mb-2 text-sm font-semibold" id="trends-table">
          {t('trends.table')}
        </h2>
        <ScrollX label={t('trends.table')}>
          <table
            aria-labelledby="trends-table"
            className="w-full text-xs"
            data-testid="trends-table"
          >
            <thead>
              <tr className="border-b border-slate-200 text-left dark:border-slate-700">
                <th scope="col" className="py-1 pr-2 font-semibold">
                  {t('trends.dayColumn')}
                </th>
                {columns.map((column, i) => (
                  <th key={column.header} scope="col" className={valueClass(i, 'font-semibold')}>
                    {column.header}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {[...trends.points].reverse().map((p) => (
                <tr
                  key={p.day}
                  data-day={p.day}
                  className="border-b border-slate-100 tabular-nums last:border-0 dark:border-slate-800"
                >
                  <th scope="row" className="py-1 pr-2 text-left font-normal whitespace-nowrap">
                    {format.shortDay(p.day)}
                  </th>
                  {p.watched ? (
                    columns.map((column, i) => (
                      <td key={column.header} className={valueClass(i)}>
                        {column.cell(p)}
                      </td>
                    ))
                  ) : (
                    <td
                      colSpan={columns.length}
                      className="py-1 text-right text-slate-600 dark:text-slate-400"
                    >
                      {t('trends.unwatched')}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollX>
      </section>
    </div>
  );
}

/** A pipeline's last days on the service looked at: outcomes and durations per day. */
export function TrendsPage() {
  const { t } = useTranslation('fleet');
  const { pipelineId = '' } = useParams();
  const [search, changeSearch] = useSearchChanges();
  const service = useCurrentService();
  const days = daysFrom(search.get('days'));
  const trends = useTrends(service.id, pipelineId, days);
  const dark = useDarkClass();
  const format = useZonedFormat();
  const data = trends.data;
  const title = t('trends.title', {
    pipeline: data?.name ? `${data.name} (${pipelineId})` : pipelineId,
  });
  return (
    <>
      <nav className="mb-2 flex gap-3 text-sm">
        <Link to={paths.pipelines()} className="text-teal-800 underline dark:text-teal-300">
          {t('trends.back')}
        </Link>
        <Link to={paths.fleet()} className="text-teal-800 underline dark:text-teal-300">
          {t('trends.fleet')}
        </Link>
      </nav>
      <PageHeader title={title}>
        <Field label={t('trends.days')}>
          <UrlSelect
            value={days}
            data-testid="trends-days"
            onPick={(picked) => changeSearch((now) => freshParams(now, { days: picked }))}
          >
            <Options values={PERIODS} label={(n) => t('trends.lastDays', { count: n })} />
          </UrlSelect>
        </Field>
      </PageHeader>
      {trends.error ? (
        <ErrorView error={trends.error} onRetry={() => void trends.refetch()} />
      ) : null}
      {!data ? (
        trends.error ? null : (
          <Spinner />
        )
      ) : !data.today ? (
        <p className="text-sm">{t('trends.noDay')}</p>
      ) : (
        <>
          <p className="mb-4 text-sm text-slate-700 dark:text-slate-300" data-testid="trends-zone">
            {t('trends.zoneNote', {
              zone: format.zone(data) || service.timeZone,
              day: format.day(data.today),
            })}
          </p>
          <TrendsBody trends={data} dark={dark} />
        </>
      )}
    </>
  );
}
