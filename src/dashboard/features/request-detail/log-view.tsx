import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState, useSyncExternalStore, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { notify } from '../../core/notices.ts';
import { usePreference } from '../../core/preferences.ts';
import { Button } from '../../components/button.tsx';
import { downloadText } from '../../shared/download.ts';
import { Options, SearchField, UrlSelect } from '../../components/fields.tsx';
import { ServiceTime } from '../../components/time.tsx';
import { useTimeFormat } from '../../shared/use-time.ts';

export interface LogColumn {
  /** The service's field name, which heads the copied and downloaded text. */
  readonly name: string;
  /** What the table's header shows, in the language shown. */
  readonly label: string;
  readonly width: string;
}

export interface LogLine {
  readonly cells: readonly string[];
  /** The value the filter select looks at (stage, type). */
  readonly group: string;
  /** The cell that is a stamp on the service's clock, shown with its zone. */
  readonly stampCell?: number;
  /**
   * For a stamp cell that is a time of day alone (the application log's `hh:mm:ss`): the
   * whole stamp it stands for on the service's clock, with the day the caller knows it in,
   * so that it can say its zone (and be shown in another one).
   */
  readonly stamp?: string;
}

/**
 * A time of day of the service's clock (`whole` is it with its day), shown with its zone:
 * "09:14:03 JST". The day is left out where it is the one the service wrote it on; shown
 * in another zone that moves it to another day, it is said.
 */
export function ClockTime({ whole }: { whole: string }) {
  const time = useTimeFormat();
  const shown = time.serviceStamp(whole);
  const day = whole.slice(0, 10);
  return (
    <time dateTime={time.stampIso(whole)}>
      {shown.startsWith(`${day} `) ? shown.slice(day.length + 1) : shown}
    </time>
  );
}

// Below Tailwind's sm breakpoint a log line is a card (its fields, then the message on a
// line of its own) so that a phone reads the message without scrolling sideways.
const WIDE = '(min-width: 640px)';
const subscribeWide = (onChange: () => void) => {
  const query = window.matchMedia(WIDE);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
};
const useWide = () =>
  useSyncExternalStore(
    subscribeWide,
    () => window.matchMedia(WIDE).matches,
    () => true,
  );

function highlight(text: string, needle: string): ReactNode {
  if (!needle) return text;
  const lower = text.toLowerCase();
  const parts: ReactNode[] = [];
  let from = 0;
  for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + needle.length)) {
    parts.push(
      text.slice(from, at),
      <mark
        key={at}
        className="rounded-sm bg-yellow-200 text-slate-900 dark:bg-yellow-600 dark:text-white"
      >
        {text.slice(at, at + needle.length)}
      </mark>,
    );
    from = at + needle.length;
  }
  parts.push(text.slice(from));
  return parts;
}

/**
 * A log table for thousands of lines: only the visible rows are in the DOM, while the
 * filter, search, copy and download always cover every line.
 */
export function LogView({
  columns,
  lines,
  groupLabel,
  fileName,
  live,
  group,
  query,
  onView,
}: {
  columns: readonly LogColumn[];
  lines: readonly LogLine[];
  groupLabel: string;
  fileName: string;
  live: boolean;
  /** The stage or type shown ('' for all) and the search text, both kept in the URL. */
  group: string;
  query: string;
  onView: (changes: Readonly<Partial<{ group: string; find: string }>>) => void;
}) {
  const { t } = useTranslation('requestDetail');
  const wide = useWide();
  const [matchAt, setMatchAt] = useState(0);
  const [wrap, setWrap] = usePreference('wrapLogs');
  const [follow, setFollow] = useState(live);
  const scroller = useRef<HTMLDivElement>(null);
  const groups = useMemo(() => [...new Set(lines.map((l) => l.group))].filter(Boolean), [lines]);
  const shown = useMemo(
    () => (group ? lines.filter((l) => l.group === group) : lines),
    [lines, group],
  );
  const needle = query.trim().toLowerCase();
  const matches = useMemo(
    () =>
      needle
        ? shown.flatMap((line, i) =>
            line.cells.join('\t').toLowerCase().includes(needle) ? [i] : [],
          )
        : [],
    [shown, needle],
  );
  const current = matches.length > 0 ? Math.min(matchAt, matches.length - 1) : -1;
  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer's own API, used as documented
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 28,
    overscan: 20,
  });

  useEffect(() => {
    if (!live) setFollow(false);
  }, [live]);
  useEffect(() => {
    if (follow && shown.length > 0) virtualizer.scrollToIndex(shown.length - 1, { align: 'end' });
  }, [follow, shown.length, virtualizer]);
  useEffect(() => {
    const index = matches[current];
    if (index !== undefined) virtualizer.scrollToIndex(index, { align: 'center' });
  }, [current, matches, virtualizer]);

  const text = () =>
    [columns.map((c) => c.name).join('\t'), ...shown.map((l) => l.cells.join('\t'))].join('\n');
  const copy = async () => {
    await navigator.clipboard.writeText(text());
    notify({ kind: 'success', text: t('log.copied', { count: shown.length }) });
  };
  const download = () => downloadText(fileName, 'text/plain;charset=utf-8', `${text()}\n`);
  const step = (delta: number) => {
    if (matches.length === 0) return;
    setFollow(false);
    setMatchAt((current + delta + matches.length) % matches.length);
  };
  const onScroll = () => {
    const element = scroller.current;
    if (!element || !live) return;
    const atBottom = element.scrollHeight - element.scrollTop - element.clientHeight < 40;
    if (follow !== atBottom) setFollow(atBottom);
  };
  const grid = columns.map((c) => c.width).join(' ');
  // Wide: a grid of the columns, as wide as its lines unless wrapped. Narrow: cards.
  const rowLayout = wide
    ? { gridTemplateColumns: grid, minWidth: wrap ? undefined : 'max-content' }
    : undefined;
  const lastCell = columns.length - 1;
  const cellClass = (i: number) =>
    wide
      ? `px-2 py-1 ${wrap ? 'break-words whitespace-pre-wrap' : 'whitespace-pre'}`
      : i === lastCell
        ? 'basis-full px-2 pb-1 break-words whitespace-pre-wrap'
        : 'px-2 pt-1 text-slate-600 dark:text-slate-300';

  return (
    <div className="flex flex-col gap-2">
      <div className="flex flex-wrap items-end gap-2">
        <label className="flex flex-col gap-1 text-sm">
          <span className="font-medium">{groupLabel}</span>
          <UrlSelect value={group} onPick={(picked) => onView({ group: picked })}>
            <option value="">{t('log.all')}</option>
            <Options values={groups} />
          </UrlSelect>
        </label>
        <SearchField
          label={t('log.search')}
          value={query}
          placeholder={t('log.searchPlaceholder')}
          onText={(find) => {
            onView({ find });
            setMatchAt(0);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              step(e.shiftKey ? -1 : 1);
            }
          }}
        />
        <span
          className="pb-2 text-xs text-slate-500 dark:text-slate-400"
          aria-live="polite"
          data-testid="match-count"
        >
          {needle
            ? matches.length === 0
              ? t('log.noMatch')
              : t('log.matches', { current: current + 1, total: matches.length })
            : shown.length === lines.length
              ? t('log.lines', { count: lines.length })
              : t('log.linesOf', { shown: shown.length, total: lines.length })}
        </span>
        <Button
          size="sm"
          onClick={() => step(-1)}
          disabled={matches.length === 0}
          aria-label={t('log.previousMatch')}
        >
          {t('log.previousSymbol')}
        </Button>
        <Button
          size="sm"
          onClick={() => step(1)}
          disabled={matches.length === 0}
          aria-label={t('log.nextMatch')}
        >
          {t('log.nextSymbol')}
        </Button>
        <label className="flex items-center gap-1.5 pb-1.5 text-sm">
          <input type="checkbox" checked={wrap} onChange={(e) => setWrap(e.target.checked)} />
          {t('log.wrap')}
        </label>
        {live ? (
          <label className="flex items-center gap-1.5 pb-1.5 text-sm" title={t('log.followHint')}>
            <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} />
            {t('log.follow')}
          </label>
        ) : null}
        <Button size="sm" onClick={() => void copy()}>
          {t('log.copy')}
        </Button>
        <Button size="sm" onClick={download}>
          {t('log.download')}
        </Button>
      </div>
      <div
        ref={scroller}
        onScroll={onScroll}
        role="table"
        aria-label={t('log.region')}
        // Focusable so that keyboard users can scroll it (WCAG 2.1.1).
        tabIndex={0}
        aria-rowcount={shown.length}
        className="h-[28rem] overflow-auto rounded-lg border border-slate-200 bg-white font-mono text-xs dark:border-slate-800 dark:bg-slate-900"
      >
        <div
          role="row"
          className={`sticky top-0 z-10 border-b border-slate-200 bg-slate-50 font-sans font-semibold text-slate-600 dark:border-slate-800 dark:bg-slate-800 dark:text-slate-300 ${wide ? 'grid' : 'flex flex-wrap'}`}
          style={rowLayout}
        >
          {columns.map((c, i) => (
            <div
              key={c.name}
              role="columnheader"
              className={wide || i !== lastCell ? 'px-2 py-1.5' : 'basis-full px-2 pb-1.5'}
            >
              {c.label}
            </div>
          ))}
        </div>
        {shown.length === 0 ? (
          <p className="p-4 font-sans text-slate-600 dark:text-slate-400">{t('log.empty')}</p>
        ) : null}
        <div
          style={{
            height: virtualizer.getTotalSize(),
            position: 'relative',
            minWidth: wide && !wrap ? 'max-content' : undefined,
          }}
        >
          {virtualizer.getVirtualItems().map((item) => {
            const line = shown[item.index] as LogLine;
            const isCurrent = matches[current] === item.index;
            return (
              <div
                key={item.key}
                ref={virtualizer.measureElement}
                data-index={item.index}
                role="row"
                aria-rowindex={item.index + 1}
                className={`absolute top-0 left-0 w-full border-b ${wide ? 'grid' : 'flex flex-wrap'} border-slate-100 dark:border-slate-800 ${isCurrent ? 'bg-yellow-50 ring-1 ring-yellow-400 ring-inset dark:bg-yellow-950' : ''}`}
                style={{
                  transform: `translateY(${item.start}px)`,
                  gridTemplateColumns: wide ? grid : undefined,
                }}
              >
                {/* The service's own words: never translated (a browser's translator included). */}
                {line.cells.map((cell, i) => (
                  <div key={i} role="cell" translate="no" className={cellClass(i)}>
                    {i === line.stampCell && !(needle && cell.toLowerCase().includes(needle)) ? (
                      line.stamp !== undefined ? (
                        <ClockTime whole={line.stamp} />
                      ) : (
                        <ServiceTime stamp={cell} />
                      )
                    ) : (
                      highlight(cell, needle)
                    )}
                  </div>
                ))}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
