import { isCalendarDay } from '../clock.ts';
import type { RequestFilter } from '../db/status/request-list.ts';
import { notText } from '../db/text.ts';
import { badParameter } from '../errors.ts';
import type { AnsweredBy } from './fields.ts';
import type { Params } from './params.ts';

/** A status word of the embedded engine: our contract's shape. */
const EMBEDDED_STATUS_WORD = /^[A-Za-z][A-Za-z_-]{0,31}$/;
/** The longest status word of an upstream that a filter takes. */
const UPSTREAM_STATUS_WORD_MAX = 64;

/**
 * The words of a `status` filter (comma-separated), or why they are refused (the caller
 * names the parameter in its own envelope). The embedded engine's have our contract's shape;
 * an upstream's are its own (実行中, En cours, …), so behind the gateway only an empty word, a
 * long one or one that is not one line of text is refused.
 */
export function statusWords(
  status: string | undefined,
  by: AnsweredBy,
): { words: string[] | undefined } | { refused: string } {
  const words = status?.split(',').map((s) => s.trim());
  const fits = (word: string) =>
    by === 'embedded'
      ? EMBEDDED_STATUS_WORD.test(word)
      : word !== '' && word.length <= UPSTREAM_STATUS_WORD_MAX && notText(word) === undefined;
  if (!words?.some((word) => !fits(word))) return { words };
  return {
    refused:
      by === 'embedded'
        ? 'must be status words separated by commas, such as Error,Stop'
        : `must be the service's status words separated by commas, each one line of at most ${UPSTREAM_STATUS_WORD_MAX} characters`,
  };
}

/**
 * The filters of a request list (contract section 8): `status` (comma-separated), `q` (a
 * substring of id, file name or error message) and `since` (yyyymmddhhmmss, changed since).
 */
export function requestFilter(params: Params, by: AnsweredBy): RequestFilter {
  const asked = statusWords(params.optional('status', 400), by);
  if ('refused' in asked) throw badParameter('status', asked.refused);
  const statuses = asked.words;
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
