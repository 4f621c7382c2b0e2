import { isCalendarDay } from '../clock.ts';
import type { RequestFilter } from '../db/status/request-list.ts';
import { badParameter } from '../errors.ts';
import type { Params } from './params.ts';

/** A status word: statuses are an open set, so any plain word may be asked for. */
const STATUS_WORD = /^[A-Za-z][A-Za-z_-]{0,31}$/;

/**
 * The filters of a request list (contract section 8): `status` (comma-separated), `q` (a
 * substring of id, file name or error message) and `since` (yyyymmddhhmmss, changed since).
 */
export function requestFilter(params: Params): RequestFilter {
  const status = params.optional('status', 400);
  const statuses = status?.split(',').map((s) => s.trim());
  if (statuses?.some((s) => !STATUS_WORD.test(s)))
    throw badParameter('status', 'must be status words separated by commas, such as Error,Stop');
  const text = params.optional('q', 200);
  const since = params.optional('since');
  let sinceStamp: string | undefined;
  if (since !== undefined) {
    const m = /^(\d{8})(\d{2})(\d{2})(\d{2})$/.exec(since);
    if (
      !m ||
      !isCalendarDay(m[1] as string) ||
      Number(m[2]) > 23 ||
      Number(m[3]) > 59 ||
      Number(m[4]) > 59
    )
      throw badParameter('since', 'must be a time as yyyymmddhhmmss');
    const day = m[1] as string;
    sinceStamp = `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6, 8)} ${m[2]}:${m[3]}:${m[4]}`;
  }
  return { statuses, text, since: sinceStamp };
}
