import { parseArgs } from 'node:util';
import {
  DATABASE_NAMES,
  END_STATUSES,
  HttpError,
  KIT_VERSION,
  NetworkError,
  OK_STATUSES,
  ParseError,
  PipelineClient,
  TimeoutError,
  knownCharset,
  requestHasEnded,
  type AppLogEntry,
  type BulkJob,
  type DatabaseName,
  type Format,
  type RequestDetail,
  type RequestLogEntry,
  type StartedRequest,
} from '../index.ts';
import {
  SHELLS,
  completionScript,
  type CommandSpec,
  type OptionSpec,
  type Shell,
} from './completion.ts';

/** A mistake in the command line (exit 2): said before anything is sent to the service. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** No command at all: the whole usage text goes with the message. */
class NoCommand extends UsageError {}

/** Exit statuses, as the usage text tells them. */
export const EXIT = {
  /** The command did what it was asked; a followed request ended in an ok status. */
  done: 0,
  /** The service refused or could not be reached, or a followed request ended failing. */
  failed: 1,
  /** The command line was wrong: nothing was sent. */
  usage: 2,
  /** exec --wait or detail --follow could not follow the request to its end. */
  notFollowed: 3,
} as const;

/** Commands, for the completion scripts (the usage text below says more). */
const COMMANDS: Readonly<Record<string, CommandSpec>> = {
  list: { help: 'pipelines' },
  exec: { help: 'start a request' },
  requests: { help: 'requests of a day' },
  requeststats: { help: 'counts of a day per pipeline, hour and status' },
  bulk: { help: 'retry or cancel the requests of a selection', words: ['retry', 'cancel'] },
  'bulk-job': { help: 'a bulk job and its refused or failed requests' },
  detail: { help: 'one request, its logs; --follow tails them' },
  retry: { help: 'run a request in Error or Stop again' },
  cancel: { help: 'stop a waiting or running request' },
  resume: { help: 'set a pipeline running' },
  suspend: { help: 'suspend a pipeline' },
  inbox: { help: 'files exec may name' },
  version: { help: "the service's version" },
  db: { help: 'tables of a database, or a page of one', words: DATABASE_NAMES },
  'clear-cache': { help: "clear a pipeline's caches" },
  'delete-table': { help: 'delete the rows of a table' },
  'drop-table': { help: 'drop a table' },
  completion: { help: 'a shell completion script', words: SHELLS },
  help: { help: 'this usage text' },
};

/** Options: what parseArgs reads, and what the completion scripts offer. */
const OPTIONS = {
  url: { type: 'string', value: 'url', help: 'service address' },
  key: { type: 'string', value: 'key', help: 'API key' },
  json: { type: 'boolean', help: 'JSON for scripts, errors included' },
  wire: { type: 'string', value: 'type', choices: ['xml', 'json'], help: 'answer type asked for' },
  timeout: { type: 'string', value: 'ms', help: 'per call, in milliseconds (0 = no limit)' },
  charset: { type: 'string', value: 'label', help: 'charset of answers that state none' },
  wait: { type: 'boolean', help: 'exec: follow the request to its end' },
  follow: { type: 'boolean', help: "detail: tail the request's logs until it ends" },
  'wait-timeout': { type: 'string', value: 'seconds', help: 'give up following after (0 = never)' },
  'ok-status': {
    type: 'string',
    value: 'statuses',
    help: 'statuses that end well (default Finish)',
  },
  file: { type: 'string', value: 'file', help: 'exec: the inbox file' },
  arg: { type: 'string', multiple: true, value: 'name=value', help: 'exec: a pipeline argument' },
  date: { type: 'string', value: 'yyyymmdd', help: 'the day' },
  pipeline: { type: 'string', value: 'pipeline', help: 'a pipeline id' },
  index: { type: 'string', value: 'n', help: 'first row of the page (from 0)' },
  'page-size': { type: 'string', value: 'n', help: 'rows of the page (from 1)' },
  logs: { type: 'boolean', help: 'detail: with its logs' },
  status: { type: 'string', value: 'statuses', help: 'bulk: statuses to select' },
  q: { type: 'string', value: 'text', help: 'bulk: text to select' },
  reason: { type: 'string', value: 'text', help: 'bulk: run it, for this reason' },
  sensor: { type: 'boolean', help: 'clear-cache: the Sensor cache' },
  filter: { type: 'boolean', help: 'clear-cache: the Filter cache' },
  joint: { type: 'boolean', help: 'clear-cache: the Joint cache' },
  help: { type: 'boolean', short: 'h', help: 'this usage text' },
  version: { type: 'boolean', help: "pipelinectl's own version" },
} as const satisfies Record<string, OptionSpec>;

const USAGE = `Usage: pipelinectl <command> [arguments] [options]

Commands:
  list                                   pipelines
  exec <pipeline> --file <name> [--arg k=v ...]
                                         start a request; prints its RequestId, or says the
                                         service named none (interfaces.md's exec names none)
     ... --wait [--wait-timeout s] [--ok-status S,..]
                                         then follow it to its end and print its final status;
                                         a request the service did not name is the one new
                                         request in the pipeline's list of the day (listed
                                         just before and after the exec). It has ended when
                                         its EndTime is set or its status is Finish, Error,
                                         Stop or an --ok-status; it ended well when its status
                                         is an --ok-status (default Finish). --wait-timeout
                                         in seconds (default 3600, 0 = no limit)
  requests [--date yyyymmdd] [--pipeline pl_N] [--index n] [--page-size n]
                                         requests of a day, newest first
  requeststats [--date yyyymmdd] [--pipeline pl_N]
                                         a day's exact counts per pipeline, hour and status
  bulk <retry|cancel> --date yyyymmdd [--pipeline pl_N] [--status S,..] [--q text]
                                         the exact count and first requests a bulk call takes;
     ... --reason <text>                 then run it, waiting for the end (extension)
  bulk-job <jobid>                       a bulk job's progress and its refused or failed requests
  detail <requestid> [--logs]            one request, with its request and application logs
     ... --follow [--wait-timeout s] [--ok-status S,..]
                                         print its log lines as they come until it ends, then
                                         its final status (ended and ended well as for
                                         exec --wait); with --json one JSON object a line
  retry <requestid>                      run a request in Error or Stop again
  cancel <requestid>                     stop a waiting or running request
  resume <pipeline> | suspend <pipeline> set a pipeline's Runmode
  inbox                                  the inbox's files exec may name (extension)
  version                                the service's version (--version: pipelinectl's)
  db <system|status|action> [table] [--index n] [--page-size n]
                                         tables of a database, or a page of one
  clear-cache <pipeline> [--sensor] [--filter] [--joint]
  delete-table <table> | drop-table <table>
  completion <bash|zsh>                  a completion script: source <(pipelinectl completion bash)
  help                                   this text (also --help, -h)

Options:
  --url <url>        service address [PIPELINE_URL] (default http://127.0.0.1:25080)
  --key <key>        API key [PIPELINE_API_KEY]
  --json             print JSON for scripts instead of tables; errors too, on stderr:
                     {"error":{"kind":"usage|refused|network|timeout|parse|internal",
                     "code":<the service's error code or null>,"status":<HTTP status or
                     null>,"message":"<the service's own words>"}}
  --wire <xml|json>  response type to ask the service for (default xml: interfaces.md
                     describes XML alone; a vendor's JSON may not tell NULL from '')
  --timeout <ms>     per call, whole milliseconds (default 30000, 0 = no limit)
  --charset <label>  charset of answers that state none (default UTF-8; a stated one wins),
                     e.g. shift_jis or euc-jp
  --index <n>        from 0; --page-size <n> from 1; --wait-timeout <s> from 0 (0 = no limit)
  --version          pipelinectl's own version

Exit status:
  0  done (a followed request ended in an --ok-status)
  1  the service refused or could not be reached, or a followed request ended failing
  2  usage: the command line was wrong, nothing was sent
  3  exec --wait or detail --follow could not follow the request to its end (not ended at
     --wait-timeout, or the service's list did not tell which request it was)
`;

/** The largest timer Node and browsers keep (2^31 - 1 ms); a longer one fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

/** The exec line: what the service answered and which request it started, if known. */
function startedLine(started: StartedRequest, pipelineId: string): string {
  const head = `${started.status} ${started.message}`;
  if (started.requestIdFrom === 'service') return `${head} ${started.requestId}`;
  if (started.requestIdFrom === 'list')
    return `${head} ${started.requestId} (the service named no request id; it is the one new request of ${pipelineId} in its list of the day)`;
  const fresh = started.newRequestIds;
  if (fresh === undefined) return `${head}: accepted; the service named no request id`;
  return fresh.length === 0
    ? `${head}: accepted; the service named no request id, and its list of the day shows no new request of ${pipelineId}: cannot tell which to follow`
    : `${head}: accepted; the service named no request id, and its list of the day shows ${fresh.length} new requests of ${pipelineId} (${fresh.join(', ')}): cannot tell which to follow`;
}

function stateOf(detail: RequestDetail): string {
  return `${detail.status || '(no status)'}${detail.stage ? ` (${detail.stage})` : ''}`;
}

/**
 * A whole number option between `min` and `max`, or a usage error naming it: never NaN
 * sent on or taken as "off".
 */
function wholeNumber(
  option: string,
  value: string | undefined,
  what: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new UsageError(`${option} takes ${what}, not '${value}'`);
  return n;
}

/** A number of seconds, fractions allowed, 0 meaning no limit. */
function seconds(option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d+(\.\d+)?$/.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(n) || n * 1000 > Number.MAX_SAFE_INTEGER)
    throw new UsageError(`${option} takes a number of seconds (0 = no limit), not '${value}'`);
  return n;
}

/** Status words of --ok-status, or a usage error. */
function statusWords(option: string, value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const words = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (words.length === 0) throw new UsageError(`${option} takes status words, S,..`);
  return words;
}

type Row = Record<string, string | number | boolean | null | undefined>;

function table(rows: readonly Row[], columns?: readonly string[]): string {
  const names = columns ?? Object.keys(rows[0] ?? {});
  if (rows.length === 0) return '(none)\n';
  const cell = (value: Row[string]) =>
    value === null ? 'NULL' : value === undefined ? '' : String(value).replace(/\s+/g, ' ');
  const widths = names.map((n) =>
    Math.min(60, Math.max(n.length, ...rows.map((r) => cell(r[n]).length))),
  );
  const line = (values: readonly string[]) =>
    values
      .map((v, i) =>
        v.length > (widths[i] ?? 0)
          ? `${v.slice(0, (widths[i] ?? 1) - 1)}…`
          : v.padEnd(widths[i] ?? 0),
      )
      .join('  ')
      .trimEnd();
  return `${[line(names), line(widths.map((w) => '-'.repeat(w))), ...rows.map((r) => line(names.map((n) => cell(r[n]))))].join('\n')}\n`;
}

function bulkSummary(job: BulkJob): string {
  const ran = `job ${job.jobId} (${job.action}, ${job.state}): ${job.done} of ${job.total} done, ${job.succeeded} ok, ${job.refused} refused, ${job.failed} failed`;
  const calls = job.stopped === null ? ran : `${ran}\n${job.stopped}`;
  if (!job.now || job.now.accepted === 0) return `${calls}\n`;
  const now = [
    ...job.now.statuses.map((s) => `${s.count} ${s.status}`),
    ...(job.now.unknown > 0 ? [`${job.now.unknown} no longer known`] : []),
  ];
  return `${calls}\nthe ${job.now.accepted} accepted now: ${now.join(', ')}\n`;
}

/** A look that failed for a passing reason (as followRequest sees it): tried again. */
function transient(error: unknown): boolean {
  return (
    error instanceof NetworkError ||
    error instanceof TimeoutError ||
    (error instanceof HttpError && error.status >= 500)
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type LogLine =
  ({ readonly log: 'request' } & RequestLogEntry) | ({ readonly log: 'app' } & AppLogEntry);

function logLineText(line: LogLine): string {
  return line.log === 'request'
    ? `${line.date}  ${line.stage || '-'} ${line.event} ${line.status}${line.actionOrder ? ` #${line.actionOrder}` : ''}  ${line.message}`
    : `${line.date}  app ${line.type}  ${line.message}`;
}

interface FollowLogsOptions {
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
async function followLogs(
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
      if (!transient(error) || ++failures >= 5) throw error;
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

/**
 * Runs one command; `write` takes what it prints, `progress` what a waiting command says
 * along the way (stderr from the command line, so that stdout stays the answer). A usage
 * mistake throws a UsageError before anything is sent; a service's refusal throws the
 * kit's HttpError (`cli` turns both into a message and an exit status).
 */
export async function run(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  write: (text: string) => void,
  progress: (text: string) => void = () => undefined,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: OPTIONS,
    allowPositionals: true,
  });
  const [command, target, extra] = positionals;
  if (values.help || command === 'help') {
    write(USAGE);
    return EXIT.done;
  }
  if (values.version) {
    write(`${KIT_VERSION}\n`);
    return EXIT.done;
  }
  if (!command) throw new NoCommand('no command given');
  if (command === 'completion') {
    if (!(SHELLS as readonly string[]).includes(target ?? ''))
      throw new UsageError(`completion takes ${SHELLS.join(' or ')}`);
    write(completionScript(target as Shell, COMMANDS, OPTIONS));
    return EXIT.done;
  }
  if (!Object.hasOwn(COMMANDS, command))
    throw new UsageError(`unknown command ${command}; see pipelinectl --help`);

  // Every option is read and checked before anything is sent.
  // XML by default: it is the one form interfaces.md describes whole (a NULL cell is
  // isnull="true"); a vendor's JSON is its own, and may write a NULL as ''.
  const wire = (values.wire ?? 'xml') as Format;
  if (wire !== 'json' && wire !== 'xml')
    throw new UsageError(`--wire takes xml or json, not '${values.wire}'`);
  if (values.charset !== undefined && knownCharset(values.charset) === undefined)
    throw new UsageError(`--charset ${values.charset} is not a charset this platform decodes`);
  const timeoutMs =
    wholeNumber(
      '--timeout',
      values.timeout,
      `a whole number of milliseconds from 0 (no limit) to ${MAX_TIMER_MS}`,
      0,
      MAX_TIMER_MS,
    ) ?? 30_000;
  const page = {
    index: wholeNumber('--index', values.index, 'a whole number from 0', 0),
    pageSize: wholeNumber('--page-size', values['page-size'], 'a whole number from 1', 1),
  };
  const waitTimeoutS = seconds('--wait-timeout', values['wait-timeout']) ?? 3600;
  const okStatuses = statusWords('--ok-status', values['ok-status']) ?? [...OK_STATUSES];
  if (values.wait && command !== 'exec') throw new UsageError('--wait goes with exec');
  if (values.follow && command !== 'detail') throw new UsageError('--follow goes with detail');
  if (
    !values.wait &&
    !values.follow &&
    (values['wait-timeout'] !== undefined || values['ok-status'] !== undefined)
  )
    throw new UsageError('--wait-timeout and --ok-status go with exec --wait or detail --follow');
  const need = (value: string | undefined, what: string): string => {
    if (!value) throw new UsageError(`${command} needs ${what}`);
    return value;
  };

  const client = new PipelineClient({
    baseUrl: values.url ?? env.PIPELINE_URL ?? 'http://127.0.0.1:25080',
    apiKey: values.key ?? env.PIPELINE_API_KEY,
    timeoutMs,
    ...(values.charset === undefined ? {} : { charset: values.charset }),
  });
  const out = (data: unknown, human: () => string): void =>
    write(values.json ? `${JSON.stringify(data, null, 2)}\n` : human());
  const done = (result: {
    status: string;
    message: string;
    rowCount?: number | undefined;
    requestId?: string | undefined;
  }) =>
    out(
      result,
      () =>
        `${result.status} ${result.message}${result.requestId ? ` ${result.requestId}` : ''}${result.rowCount !== undefined ? ` (${result.rowCount} rows)` : ''}\n`,
    );

  switch (command) {
    case 'list': {
      const pipelines = await client.listPipelines(wire);
      out(pipelines, () =>
        table(
          pipelines.map((p) => ({
            Id: p.id,
            Name: p.name,
            Runmode: p.runmode,
            Updated: p.updatedate,
            Args: p.args.map((a) => `${a.name}=${a.value}`).join(' '),
          })),
        ),
      );
      return 0;
    }
    case 'exec': {
      const args: Record<string, string> = {};
      for (const pair of values.arg ?? []) {
        const at = pair.indexOf('=');
        if (at < 1) throw new UsageError(`--arg takes name=value, not ${pair}`);
        args[pair.slice(0, at)] = pair.slice(at + 1);
      }
      const pipelineId = need(target, 'a pipeline id');
      const filename = need(values.file, '--file');
      const wait = values.wait === true;
      const started = await client.startRequest(pipelineId, filename, args, {
        format: wire,
        find: wait,
      });
      const startedJson = { ...started, requestId: started.requestId ?? null };
      if (!wait) {
        out(startedJson, () => `${startedLine(started, pipelineId)}\n`);
        return 0;
      }
      if (started.requestId === undefined) {
        out({ ...startedJson, outcome: 'unknown' }, () => `${startedLine(started, pipelineId)}\n`);
        return EXIT.notFollowed;
      }
      const requestId = started.requestId;
      const followed = await client.followRequest(requestId, {
        format: wire,
        okStatuses,
        timeoutMs: waitTimeoutS * 1000,
        onChange: (detail) => progress(`${requestId} ${stateOf(detail)}\n`),
      });
      const { detail, outcome } = followed;
      out({ ...startedJson, outcome, detail }, () => {
        const end =
          outcome === 'running'
            ? `${requestId} has not ended after ${waitTimeoutS} s: ${stateOf(detail)}`
            : `${requestId} ended ${stateOf(detail)}${detail.endTime ? ` at ${detail.endTime}` : ''}${outcome === 'failed' ? `: failed (ok is ${okStatuses.join(', ')})` : ''}`;
        return `${startedLine(started, pipelineId)}\n${end}\n`;
      });
      return outcome === 'ok' ? EXIT.done : outcome === 'failed' ? EXIT.failed : EXIT.notFollowed;
    }
    case 'requests': {
      const list = await client.requestList(
        {
          date: values.date,
          id: values.pipeline,
          ...page,
        },
        wire,
      );
      out(list, () => {
        const info = list.info;
        const summary = `${info.date}${info.id ? ` ${info.id}` : ''}: ${info.count} of ${info.total ?? '?'} from index ${info.index}${info.next >= 0 ? ` (next: --index ${info.next})` : ''}\n`;
        return (
          summary +
          table(
            list.requests.map((r) => ({
              RequestId: r.requestId,
              Pipeline: r.name,
              Status: r.status,
              Stage: r.stage,
              Begin: r.beginDate,
            })),
          )
        );
      });
      return 0;
    }
    case 'requeststats': {
      const stats = await client.requestStats({ date: values.date, id: values.pipeline }, wire);
      out(stats, () => {
        // One column per status of the day, contract statuses or not, in the answer's order.
        const statuses = [
          ...new Set(stats.pipelines.flatMap((p) => p.counts.map((c) => c.status))),
        ];
        const pivot = (counts: readonly { status: string; value: number }[]) =>
          Object.fromEntries(
            statuses.map((s) => [s, counts.find((c) => c.status === s)?.value ?? 0]),
          );
        const perPipeline = stats.pipelines.map((p) => ({
          Id: p.id,
          Name: p.name,
          ...pivot(p.counts),
        }));
        const perHour = stats.hours
          .filter((h) => h.counts.length > 0)
          .map((h) => ({ Hour: String(h.hour).padStart(2, '0'), ...pivot(h.counts) }));
        return (
          `${stats.date}: ${stats.total} requests\n` +
          table(perPipeline, ['Id', 'Name', ...statuses]) +
          (perHour.length > 0 ? `\n${table(perHour, ['Hour', ...statuses])}` : '')
        );
      });
      return 0;
    }
    case 'bulk': {
      if (target !== 'retry' && target !== 'cancel')
        throw new UsageError('bulk takes retry or cancel');
      const selection = {
        action: target,
        date: need(values.date, '--date'),
        id: values.pipeline,
        statuses: values.status?.split(','),
        q: values.q,
      } as const;
      const preview = await client.bulk.preview(selection);
      if (values.reason === undefined) {
        out(preview, () =>
          [
            `${preview.total} requests would be ${target === 'retry' ? 'retried' : 'cancelled'}; add --reason to do it.`,
            ...preview.requestIds,
            '',
          ].join('\n'),
        );
        return 0;
      }
      let job = await client.bulk.start(selection, values.reason, preview.total);
      while (job.state === 'running') {
        await new Promise((resolve) => setTimeout(resolve, 500));
        job = await client.bulk.job(job.jobId, { pageSize: 1 });
      }
      out(job, () => bulkSummary(job));
      return job.refused + job.failed > 0 || job.state === 'stopped' ? 1 : 0;
    }
    case 'bulk-job': {
      const id = wholeNumber(
        'bulk-job',
        need(target, 'a job id'),
        'a job id (a whole number from 1)',
        1,
      ) as number;
      const job = await client.bulk.job(id, { pageSize: 1 });
      const problems = [
        ...(await client.bulk.job(id, { outcome: 'refused', pageSize: 1000 })).items,
        ...(await client.bulk.job(id, { outcome: 'failed', pageSize: 1000 })).items,
      ];
      out({ ...job, items: problems }, () =>
        problems.length === 0
          ? bulkSummary(job)
          : `${bulkSummary(job)}${table(problems.map((p) => ({ RequestId: p.requestId, Outcome: p.outcome, Message: p.message })))}`,
      );
      return 0;
    }
    case 'detail': {
      const requestId = need(target, 'a request id');
      if (values.follow)
        return followLogs(client, requestId, {
          wire,
          okStatuses,
          timeoutMs: waitTimeoutS * 1000,
          json: values.json === true,
          write,
          progress,
        });
      const detail = await client.requestDetail(
        requestId,
        { requestLog: values.logs, appLog: values.logs },
        wire,
      );
      out(detail, () => {
        const { requestLog, appLog, begin: _begin, end: _end, ...summary } = detail;
        let text = table(
          Object.entries(summary).map(([field, value]) => ({
            Field: field,
            Value: value as string,
          })),
        );
        if (requestLog) text += `\nRequest log\n${table(requestLog.map((l) => ({ ...l })))}`;
        if (appLog) text += `\nApplication log\n${table(appLog.map((l) => ({ ...l })))}`;
        return text;
      });
      return 0;
    }
    case 'retry':
      done(await client.retry(need(target, 'a request id'), wire));
      return 0;
    case 'cancel':
      done(await client.cancel(need(target, 'a request id'), wire));
      return 0;
    case 'resume':
      done(await client.resume(need(target, 'a pipeline id'), wire));
      return 0;
    case 'suspend':
      done(await client.suspend(need(target, 'a pipeline id'), wire));
      return 0;
    case 'inbox': {
      const files = await client.inbox(wire);
      out(files, () =>
        table(
          files.map((f) => ({ Name: f.name, Size: f.size, Modified: f.modified })),
          ['Name', 'Size', 'Modified'],
        ),
      );
      return 0;
    }
    case 'version': {
      const version = await client.version(wire);
      out({ version }, () => `${version}\n`);
      return 0;
    }
    case 'db': {
      const names = `${DATABASE_NAMES.slice(0, -1).join(', ')} or ${DATABASE_NAMES.at(-1)}`;
      const database = need(target, names) as DatabaseName;
      if (!(DATABASE_NAMES as readonly string[]).includes(database))
        throw new UsageError(`db takes ${names}`);
      if (extra === undefined) {
        const list = await client.tables(database, page, wire);
        out(list, () => table(list.tables.map((t) => ({ Table: t }))));
      } else {
        const contents = await client.table(database, extra, page, wire);
        out(contents, () => {
          const names = contents.columns.map((c) => c.name);
          const rows = contents.rows.map((r) =>
            Object.fromEntries(names.map((n, i) => [n, r[i] ?? null])),
          );
          return `${extra}: rows ${contents.info.index + 1}-${contents.info.index + contents.info.count} of ${contents.info.total ?? '?'}\n${table(rows, names)}`;
        });
      }
      return 0;
    }
    case 'clear-cache':
      done(
        await client.clearCache(
          need(target, 'a pipeline id'),
          { sensor: values.sensor, filter: values.filter, joint: values.joint },
          wire,
        ),
      );
      return 0;
    case 'delete-table':
      done(await client.deleteTable(need(target, 'a table name'), wire));
      return 0;
    case 'drop-table':
      done(await client.dropTable(need(target, 'a table name'), wire));
      return 0;
    default:
      throw new UsageError(`unknown command ${command}; see pipelinectl --help`);
  }
}

/** What went wrong, as --json prints it on stderr: `{"error": Failure}`. */
export interface Failure {
  readonly kind: 'usage' | 'refused' | 'network' | 'timeout' | 'parse' | 'internal';
  /** The service's own error code (an ExecuteResponse's or an error body's), if it gave one. */
  readonly code: number | null;
  /** The HTTP status of the answer that refused, if one did. */
  readonly status: number | null;
  /** The service's own words for a refusal; what went wrong otherwise. */
  readonly message: string;
}

/** The failure an error of `run` stands for, its exit status and its line for people. */
function failureOf(error: unknown): { failure: Failure; exit: number; text: string } {
  const plain = (kind: Failure['kind'], message: string, exit: number = EXIT.failed) => ({
    failure: { kind, code: null, status: null, message },
    exit,
    text: message,
  });
  // parseArgs says what was wrong with an option in a TypeError coded ERR_PARSE_ARGS_*.
  const parseArgsCode = (error as { code?: unknown } | null)?.code;
  if (
    error instanceof UsageError ||
    (error instanceof TypeError &&
      typeof parseArgsCode === 'string' &&
      parseArgsCode.startsWith('ERR_PARSE_ARGS_'))
  )
    return plain('usage', error.message.replace(/\s*\n\s*/g, ' '), EXIT.usage);
  if (error instanceof HttpError) {
    // A refusal inside a 2xx answer (a vendor service) has only the service's words.
    const status = error.status < 400 ? 'refused' : String(error.status);
    const head = `${status}${error.code !== undefined ? ` ${error.code}` : ''}`;
    const words = error.serviceMessage ?? error.message;
    return {
      failure: { kind: 'refused', code: error.code ?? null, status: error.status, message: words },
      exit: EXIT.failed,
      // An error page's words often start with its status ("404 Not Found"): said once.
      text: words.startsWith(`${head} `) ? words : `${head} ${words}`,
    };
  }
  if (error instanceof NetworkError) return plain('network', error.message);
  if (error instanceof TimeoutError) return plain('timeout', error.message);
  if (error instanceof ParseError) return plain('parse', error.message);
  return plain('internal', error instanceof Error ? error.message : String(error));
}

/** Whether the command line asks for JSON (read apart from parseArgs, which may have failed). */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).includes('--json');
}

/**
 * The whole command line: runs `argv`, prints the answer on `stdout`, progress and errors
 * on `stderr` (errors as JSON with --json), and gives the exit status (EXIT).
 */
export async function cli(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  io: { readonly stdout: (text: string) => void; readonly stderr: (text: string) => void },
): Promise<number> {
  try {
    return await run(argv, env, io.stdout, io.stderr);
  } catch (error) {
    const { failure, exit, text } = failureOf(error);
    if (wantsJson(argv)) io.stderr(`${JSON.stringify({ error: failure })}\n`);
    else if (error instanceof NoCommand) io.stderr(`pipelinectl: ${text}\n\n${USAGE}`);
    else if (exit === EXIT.usage)
      io.stderr(`pipelinectl: ${text}\nRun 'pipelinectl --help' for usage.\n`);
    else io.stderr(`pipelinectl: ${text}\n`);
    return exit;
  }
}

/** Runs the CLI with the process's arguments; exit statuses as USAGE tells. */
export async function main(): Promise<void> {
  process.exitCode = await cli(process.argv.slice(2), process.env, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
}
