import { DAY_PATTERN, REQUEST_STATUSES } from '../../../kit/index.ts';
import { dayFrom, indexFrom, pageSizeFrom } from '../../shared/url-state.ts';

/** The most days a range may span, as the server's `GET /mcapi/requests/range` allows. */
export const RANGE_MAX_DAYS = 31;

/** Days from `from` to `to` (yyyymmdd), both counted; 0 when `to` is before `from`. */
export function daysInRange(from: string, to: string): number {
  const utc = (ymd: string) =>
    Date.UTC(Number(ymd.slice(0, 4)), Number(ymd.slice(4, 6)) - 1, Number(ymd.slice(6, 8)));
  return Math.max(0, Math.round((utc(to) - utc(from)) / 86_400_000) + 1);
}

/** Why a range cannot be shown: `to` before `from`, or more days than RANGE_MAX_DAYS. */
export interface RangeProblem {
  readonly kind: 'reversed' | 'tooLong';
  readonly from: string;
  readonly to: string;
  readonly days: number;
}

/** What is wrong with a range of days, or undefined when it can be asked for. */
export function rangeProblem(from: string, to: string): RangeProblem | undefined {
  if (to < from) return { kind: 'reversed', from, to, days: 0 };
  const days = daysInRange(from, to);
  return days > RANGE_MAX_DAYS ? { kind: 'tooLong', from, to, days } : undefined;
}

/** What the requests page shows, all of it from the URL. */
export interface RequestsView {
  /** The day listed: the one picked, or a range's first. */
  readonly date: string;
  /**
   * The days picked in the range picker (`from` and `to` in the URL), when it is open.
   * From ≠ to lists the range (`/mcapi/requests/range`); from = to is that one day's list.
   */
  readonly range: { readonly from: string; readonly to: string } | undefined;
  /** A range the URL asks for that cannot be shown (hand-made links): said, not listed. */
  readonly rangeProblem: RangeProblem | undefined;
  readonly pipeline: string | undefined;
  /** Statuses the service filters on (`status=Error,Stop`); empty for all. */
  readonly status: readonly string[];
  /** The search the service runs on id, file name and error message. */
  readonly q: string | undefined;
  readonly index: number;
  readonly size: number;
}

/** The statuses of a `status` parameter: comma-separated words, blanks and repeats left out. */
export function statusesFrom(value: string | null): string[] {
  const words = (value ?? '').split(',').map((s) => s.trim());
  return [...new Set(words.filter(Boolean))];
}

/** `today` is the service's day (see useServiceToday), the date when the URL names none. */
export function readRequestsView(
  search: URLSearchParams,
  defaultSize: number,
  today: string,
): RequestsView {
  const from = search.get('from');
  const to = search.get('to');
  const valid = (d: string | null): d is string => d !== null && DAY_PATTERN.test(d);
  const range = valid(from) && valid(to) ? { from, to } : undefined;
  const problem = range ? rangeProblem(range.from, range.to) : undefined;
  return {
    date: range ? range.from : dayFrom(search.get('date'), () => today),
    range,
    rangeProblem: problem,
    pipeline: search.get('pipeline') || undefined,
    status: statusesFrom(search.get('status')),
    q: search.get('q')?.trim() || undefined,
    index: indexFrom(search.get('index')),
    size: pageSizeFrom(search.get('size'), defaultSize),
  };
}

/**
 * The `status` parameter with statuses turned on or off (one word, or a class's words
 * together), in the order of the choices; every other word chosen stays chosen.
 */
export function toggledStatus(
  current: readonly string[],
  status: string | readonly string[],
  on: boolean,
  choices: readonly string[],
): string {
  const chosen = new Set(current);
  for (const s of typeof status === 'string' ? [status] : status) {
    if (on) chosen.add(s);
    else chosen.delete(s);
  }
  return [...choices, ...current, ...(typeof status === 'string' ? [status] : status)]
    .filter((s, i, all) => chosen.has(s) && all.indexOf(s) === i)
    .join(',');
}

/**
 * The statuses the filter offers: the service's own words (ours for our engine: Wait,
 * Start, Process, Finish, Error, Stop; a vendor's as its configuration says), then any
 * other word it used on a page seen since, on this page, or the URL asks for (statuses are
 * an open set), as they are. Words seen stay offered when a filter hides their rows, so
 * ticking Error never takes Abort or Running off the list.
 */
export function statusChoices(
  rows: readonly { readonly status: string }[],
  current: readonly string[],
  serviceWords: readonly string[] = REQUEST_STATUSES,
  seen: Iterable<string> = [],
): string[] {
  const known = [...new Set(serviceWords)];
  const others = new Set<string>();
  for (const s of seen) if (s && !known.includes(s)) others.add(s);
  for (const r of rows) if (r.status && !known.includes(r.status)) others.add(r.status);
  for (const s of current) if (!known.includes(s)) others.add(s);
  return [...known, ...[...others].sort()];
}

/** A service's words in the filter's order: waiting, running, then ended ones. */
export function serviceWordsOf(semantics: {
  readonly waiting: readonly string[];
  readonly running: readonly string[];
  readonly final: readonly string[];
  readonly failed: readonly string[];
}): string[] {
  return [
    ...new Set([
      ...semantics.waiting,
      ...semantics.running,
      ...semantics.final.filter((s) => !semantics.failed.includes(s)),
      ...semantics.failed,
    ]),
  ];
}

/** Whether a view lists several days (the range's own list) rather than one day's. */
export function isMultiDay(view: Pick<RequestsView, 'range' | 'rangeProblem'>): boolean {
  return (
    view.range !== undefined && view.rangeProblem === undefined && view.range.from !== view.range.to
  );
}

/** The URL's changes that open the range picker: the week up to the day shown. */
export function openRange(date: string, shift: (ymd: string, days: number) => string) {
  return { date: undefined, from: shift(date, -6), to: date };
}

/** The URL's changes that close the range picker: back to one day, the range's last. */
export function closeRange(view: Pick<RequestsView, 'range' | 'date'>) {
  return { from: undefined, to: undefined, date: view.range?.to ?? view.date };
}

/** What a typed "Go to request" does: open an id that names its day, else look in the day. */
export function jumpTarget(text: string, dayOf: (id: string) => string | undefined) {
  const id = text.trim();
  if (!id) return undefined;
  return dayOf(id) !== undefined
    ? ({ kind: 'open', id } as const)
    : ({ kind: 'find', id } as const);
}
