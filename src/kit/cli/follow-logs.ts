import {
  END_STATUSES,
  isTransientFailure,
  requestHasEnded,
  type AppLogEntry,
  type Format,
  type PipelineClient,
  type RequestDetail,
  type RequestLogEntry,
} from '../index.ts';
import { stateOf } from './output.ts';
import { EXIT } from './usage.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type LogLine =
  ({ readonly log: 'request' } & RequestLogEntry) | ({ readonly log: 'app' } & AppLogEntry);

function logLineText(line: LogLine): string {
  return line.log === 'request'
    ? `${line.date}  ${line.stage || '-'} ${line.event} ${line.status}${line.actionOrder ? ` #${line.actionOrder}` : ''}  ${line.message}`
    : `${line.date}  app ${line.type}  ${line.message}`;
}

export interface FollowLogsOptions {
  readonly wire: Format;
  readonly okStatuses: readonly string[];
  readonly timeoutMs: number;
  readonly json: boolean;
  readonly write: (text: string) => void;
  readonly progress: (text: string) => void;
}

/**
 * detail --follow: looks at the request with its logs until it ends, printing each log
 * line once, as it comes. Looks grow apart from 250 ms to 2 s, and close again when new
 * lines came; a look that fails for a passing reason is tried again (5 in a row at most).
 */
export async function followLogs(
  client: PipelineClient,
  requestId: string,
  options: FollowLogsOptions,
): Promise<number> {
  const { wire, okStatuses, json, write, progress } = options;
  const deadline = options.timeoutMs > 0 ? Date.now() + options.timeoutMs : Infinity;
  const printed = new Map<string, number>();
  let last: RequestDetail | undefined;
  let failures = 0;
  let lastError: unknown;
  let wait = 250;
  for (;;) {
    let detail: RequestDetail | undefined;
    try {
      detail = await client.requestDetail(requestId, { requestLog: true, appLog: true }, wire);
      failures = 0;
    } catch (error) {
      if (!isTransientFailure(error) || ++failures >= 5) throw error;
      lastError = error;
    }
    if (detail !== undefined) {
      // Each line once, in the answer's order: a service need not list its lines in the
      // order it wrote them (ours lists a stage's starts before its ends), so what is new is
      // told by content, counting lines alike (a stage may log the same words twice).
      const seen = new Map<string, number>();
      const fresh = [
        ...(detail.requestLog ?? []).map((l): LogLine => ({ log: 'request', ...l })),
        ...(detail.appLog ?? []).map((l): LogLine => ({ log: 'app', ...l })),
      ].filter((line) => {
        const key = JSON.stringify(line);
        const nth = (seen.get(key) ?? 0) + 1;
        seen.set(key, nth);
        if (nth <= (printed.get(key) ?? 0)) return false;
        printed.set(key, nth);
        return true;
      });
      for (const line of fresh)
        write(json ? `${JSON.stringify(line)}\n` : `${logLineText(line)}\n`);
      if (last === undefined || last.status !== detail.status || last.stage !== detail.stage)
        progress(`${requestId} ${stateOf(detail)}\n`);
      last = detail;
      if (requestHasEnded(detail, [...END_STATUSES, ...okStatuses])) {
        const outcome = okStatuses.includes(detail.status) ? 'ok' : 'failed';
        const { requestLog: _r, appLog: _a, ...summary } = detail;
        write(
          json
            ? `${JSON.stringify({ requestId, outcome, detail: summary })}\n`
            : `${requestId} ended ${stateOf(detail)}${detail.endTime ? ` at ${detail.endTime}` : ''}${outcome === 'failed' ? `: failed (ok is ${okStatuses.join(', ')})` : ''}\n`,
        );
        return outcome === 'ok' ? EXIT.done : EXIT.failed;
      }
      if (fresh.length > 0) wait = 250;
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      // Never seen at all: what kept it from being seen is the answer.
      if (last === undefined) throw lastError;
      const { requestLog: _r, appLog: _a, ...summary } = last;
      write(
        json
          ? `${JSON.stringify({ requestId, outcome: 'running', detail: summary })}\n`
          : `${requestId} has not ended after ${options.timeoutMs / 1000} s: ${stateOf(last)}\n`,
      );
      return EXIT.notFollowed;
    }
    await sleep(Math.min(wait, left));
    wait = Math.min(wait * 2, 2000);
  }
}
