import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { notify } from '../../app/notices.ts';
import { usePreference } from '../../app/preferences.ts';
import { Button } from '../../components/button.tsx';
import { downloadText } from '../../components/download.ts';
import { Select, TextInput } from '../../components/fields.tsx';
import { strings } from './strings.ts';

export interface LogColumn {
  readonly name: string;
  readonly width: string;
}

export interface LogLine {
  readonly cells: readonly string[];
  /** The value the filter select looks at (stage, type). */
  readonly group: string;
}

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
    notify({ kind: 'success', text: strings.log.copied(shown.length) });
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

  return (
    <div className="flex flex-col gap-2">
      <div className="flex flex-wrap items-end gap-2">
        <label className="flex flex-col gap-1 text-sm">
          <span className="font-medium">{groupLabel}</span>
          <Select value={group} onChange={(e) => onView({ group: e.target.value })}>
            <option value="">{strings.log.all}</option>
            {groups.map((g) => (
              <option key={g} value={g}>
                {g}
              </option>
            ))}
          </Select>
        </label>
        <label className="flex flex-col gap-1 text-sm">
          <span className="font-medium">{strings.log.search}</span>
          <TextInput
            type="search"
            value={query}
            placeholder={strings.log.searchPlaceholder}
            onChange={(e) => {
              onView({ find: e.target.value });
              setMatchAt(0);
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                step(e.shiftKey ? -1 : 1);
              }
            }}
          />
        </label>
        <span
          className="pb-2 text-xs text-slate-500 dark:text-slate-400"
          aria-live="polite"
          data-testid="match-count"
        >
          {needle
            ? strings.log.matches(current + 1, matches.length)
            : strings.log.lines(shown.length, lines.length)}
        </span>
        <Button
          size="sm"
          onClick={() => step(-1)}
          disabled={matches.length === 0}
          aria-label={strings.log.previousMatch}
        >
          ↑
        </Button>
        <Button
          size="sm"
          onClick={() => step(1)}
          disabled={matches.length === 0}
          aria-label={strings.log.nextMatch}
        >
          ↓
        </Button>
        <label className="flex items-center gap-1.5 pb-1.5 text-sm">
          <input type="checkbox" checked={wrap} onChange={(e) => setWrap(e.target.checked)} />
          {strings.log.wrap}
        </label>
        {live ? (
          <label
            className="flex items-center gap-1.5 pb-1.5 text-sm"
            title={strings.log.followHint}
          >
            <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} />
            {strings.log.follow}
          </label>
        ) : null}
        <Button size="sm" onClick={() => void copy()}>
          {strings.log.copy}
        </Button>
        <Button size="sm" onClick={download}>
          {strings.log.download}
        </Button>
      </div>
      <div
        ref={scroller}
        onScroll={onScroll}
        role="table"
        aria-label={strings.log.region}
        // Focusable so that keyboard users can scroll it (WCAG 2.1.1).
        tabIndex={0}
        aria-rowcount={shown.length}
        className="h-[28rem] overflow-auto rounded-lg border border-slate-200 bg-white font-mono text-xs dark:border-slate-800 dark:bg-slate-900"
      >
        <div
          role="row"
          className="sticky top-0 z-10 grid border-b border-slate-200 bg-slate-50 font-sans font-semibold text-slate-600 dark:border-slate-800 dark:bg-slate-800 dark:text-slate-300"
          style={{ gridTemplateColumns: grid, minWidth: wrap ? undefined : 'max-content' }}
        >
          {columns.map((c) => (
            <div key={c.name} role="columnheader" className="px-2 py-1.5">
              {c.name}
            </div>
          ))}
        </div>
        {shown.length === 0 ? (
          <p className="p-4 font-sans text-slate-500 dark:text-slate-400">{strings.log.empty}</p>
        ) : null}
        <div
          style={{
            height: virtualizer.getTotalSize(),
            position: 'relative',
            minWidth: wrap ? undefined : 'max-content',
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
                className={`absolute top-0 left-0 grid w-full border-b border-slate-100 dark:border-slate-800 ${isCurrent ? 'bg-yellow-50 ring-1 ring-yellow-400 ring-inset dark:bg-yellow-950' : ''}`}
                style={{ transform: `translateY(${item.start}px)`, gridTemplateColumns: grid }}
              >
                {line.cells.map((cell, i) => (
                  <div
                    key={i}
                    role="cell"
                    className={`px-2 py-1 ${wrap ? 'break-words whitespace-pre-wrap' : 'whitespace-pre'}`}
                  >
                    {highlight(cell, needle)}
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
