import type { AppLogEntry, RequestLogEntry } from './records.ts';

// Why a request failed, in its service's own words, found one way wherever it is asked:
// the dashboard's detail and action outcomes, and the gateway's kept evidence of a failure.

/**
 * The states interfaces.md shows a request log's entries in. None of them tells a failure,
 * so a vendor may write its failure's words in an entry with one of them.
 */
const LOG_STATES: readonly string[] = ['Start', 'Process', 'Finish'];
/** Of those, the states of a request under way: a stage's end in one ("120 rows") is no reason. */
const PROGRESS: readonly string[] = ['Start', 'Process'];

/**
 * Application-log types that tell an error; interfaces.md shows only INFO. Log4j's and
 * java.util.logging's words, syslog's, and the one-letter levels of glog and logcat (E, F).
 */
const ERROR_TYPE = /^(error|err|fatal|severe|critical|crit|alert|emerg|emergency|e|f)$/i;

/** What the words are found in: a request's status and its logs, as far as read. */
export interface FailureSource {
  readonly status: string;
  readonly requestLog?:
    readonly Pick<RequestLogEntry, 'event' | 'status' | 'message'>[] | undefined;
  readonly appLog?: readonly Pick<AppLogEntry, 'type' | 'message'>[] | undefined;
}

const said = (message: string): boolean => message.trim() !== '';

/**
 * Why an ended request failed, in its service's words; undefined when it finished well or
 * its service wrote no reason. `isFailed` tells the service's failed words (ours: Error).
 *
 * In order: the last request-log entry with a message in a failed status or the request's
 * own (our engine's Error, a cancelled request's Stop, a vendor's Abort); else, for a failed
 * request, its log's closing entry (an End not under way) when that carries a message, where
 * a vendor whose log states are only Start, Process and Finish tells the failure; else the
 * last application-log line of an error type. A progress line ("Request Start") is never
 * taken for a reason.
 *
 * @example
 * failureWordsOf(detail, (s) => s === 'Error') // 'Input orders.csv could not be parsed'
 */
export function failureWordsOf(
  detail: FailureSource,
  isFailed: (status: string) => boolean,
): string | undefined {
  if (detail.status === 'Finish') return undefined;
  const requestLog = detail.requestLog ?? [];
  const own = LOG_STATES.includes(detail.status) ? undefined : detail.status;
  // The kit's lib is ES2022 (no findLast): the logs are searched from a reversed copy.
  const inFailedState = [...requestLog]
    .reverse()
    .find((entry) => said(entry.message) && (isFailed(entry.status) || entry.status === own));
  if (inFailedState) return inFailedState.message;
  const closing = requestLog.at(-1);
  const closes = closing?.event === 'End' && !PROGRESS.includes(closing.status);
  if (isFailed(detail.status) && closes && said(closing.message)) return closing.message;
  return [...(detail.appLog ?? [])]
    .reverse()
    .find((line) => ERROR_TYPE.test(line.type) && said(line.message))?.message;
}
