import { parseArgs } from 'node:util';
import {
  DATABASE_NAMES,
  HttpError,
  OK_STATUSES,
  PipelineClient,
  PipelineKitError,
  knownCharset,
  type BulkJob,
  type DatabaseName,
  type Format,
  type RequestDetail,
  type StartedRequest,
} from '../index.ts';

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
  retry <requestid>                      run a request in Error or Stop again
  cancel <requestid>                     stop a waiting or running request
  resume <pipeline> | suspend <pipeline> set a pipeline's Runmode
  inbox                                  the inbox's files exec may name (extension)
  version                                the service's version
  db <system|status|action> [table] [--index n] [--page-size n]
                                         tables of a database, or a page of one
  clear-cache <pipeline> [--sensor] [--filter] [--joint]
  delete-table <table> | drop-table <table>

Options:
  --url <url>        service address [PIPELINE_URL] (default http://127.0.0.1:25080)
  --key <key>        API key [PIPELINE_API_KEY]
  --json             print JSON for scripts instead of tables
  --wire <xml|json>  response type to ask the service for (default xml: interfaces.md
                     describes XML alone; a vendor's JSON may not tell NULL from '')
  --timeout <ms>     per call (default 30000, 0 = no limit)
  --charset <label>  charset of answers that state none (default UTF-8; a stated one wins),
                     e.g. shift_jis or euc-jp

Exit status: 0 done; 1 the service refused or could not be reached, or a followed
request ended failing; 2 usage; 3 exec --wait could not follow the request to its end
(not ended at --wait-timeout, or the service's list did not tell which request it was).
`;

/** Exit status of exec --wait when the request could not be followed to its end. */
const NOT_FOLLOWED = 3;

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

/** A whole number option, or an error naming it: never NaN sent on or taken as "off". */
function wholeNumber(option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim()))
    throw new Error(`--${option} takes a whole number, not '${value}'`);
  return Number(value);
}

/** A number of seconds, fractions allowed. */
function seconds(option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+(\.\d+)?$/.test(value.trim()))
    throw new Error(`--${option} takes a number of seconds, not '${value}'`);
  return Number(value);
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

/**
 * Runs one command; `write` takes what it prints, `progress` what a waiting command says
 * along the way (stderr from the command line, so that stdout stays the answer).
 */
export async function run(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  write: (text: string) => void,
  progress: (text: string) => void = () => undefined,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: {
      url: { type: 'string' },
      key: { type: 'string' },
      json: { type: 'boolean' },
      wire: { type: 'string' },
      timeout: { type: 'string' },
      charset: { type: 'string' },
      wait: { type: 'boolean' },
      'wait-timeout': { type: 'string' },
      'ok-status': { type: 'string' },
      file: { type: 'string' },
      arg: { type: 'string', multiple: true },
      date: { type: 'string' },
      pipeline: { type: 'string' },
      index: { type: 'string' },
      'page-size': { type: 'string' },
      logs: { type: 'boolean' },
      status: { type: 'string' },
      q: { type: 'string' },
      reason: { type: 'string' },
      sensor: { type: 'boolean' },
      filter: { type: 'boolean' },
      joint: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
  });
  const [command, target, extra] = positionals;
  if (values.help || !command) {
    write(USAGE);
    return command ? 0 : 2;
  }
  // XML by default: it is the one form interfaces.md describes whole (a NULL cell is
  // isnull="true"); a vendor's JSON is its own, and may write a NULL as ''.
  const wire = (values.wire ?? 'xml') as Format;
  if (wire !== 'json' && wire !== 'xml') throw new Error('--wire is xml or json');
  if (values.charset !== undefined && knownCharset(values.charset) === undefined)
    throw new Error(`--charset ${values.charset} is not a charset this platform decodes`);
  const client = new PipelineClient({
    baseUrl: values.url ?? env.PIPELINE_URL ?? 'http://127.0.0.1:25080',
    apiKey: values.key ?? env.PIPELINE_API_KEY,
    timeoutMs: wholeNumber('timeout', values.timeout) ?? 30_000,
    ...(values.charset === undefined ? {} : { charset: values.charset }),
  });
  const need = (value: string | undefined, what: string): string => {
    if (!value) throw new Error(`${command} needs ${what}`);
    return value;
  };
  const page = {
    index: wholeNumber('index', values.index),
    pageSize: wholeNumber('page-size', values['page-size']),
  };
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
        if (at < 1) throw new Error(`--arg takes name=value, not ${pair}`);
        args[pair.slice(0, at)] = pair.slice(at + 1);
      }
      const pipelineId = need(target, 'a pipeline id');
      const filename = need(values.file, '--file');
      const wait = values.wait === true;
      const okStatuses = values['ok-status']
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean) ?? [...OK_STATUSES];
      if (okStatuses.length === 0) throw new Error('--ok-status takes status words, S,..');
      const waitTimeoutS = seconds('wait-timeout', values['wait-timeout']) ?? 3600;
      if (!wait && (values['wait-timeout'] !== undefined || values['ok-status'] !== undefined))
        throw new Error('--wait-timeout and --ok-status go with --wait');
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
        return NOT_FOLLOWED;
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
      return outcome === 'ok' ? 0 : outcome === 'failed' ? 1 : NOT_FOLLOWED;
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
      if (target !== 'retry' && target !== 'cancel') throw new Error('bulk takes retry or cancel');
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
      const id = Number(need(target, 'a job id'));
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
      const detail = await client.requestDetail(
        need(target, 'a request id'),
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
        throw new Error(`db takes ${names}`);
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
      throw new Error(`unknown command ${command}; see pipelinectl --help`);
  }
}

/** Runs the CLI with process arguments; exit statuses as USAGE tells (1 service errors, 2 usage). */
export async function main(): Promise<void> {
  try {
    process.exitCode = await run(
      process.argv.slice(2),
      process.env,
      (text) => process.stdout.write(text),
      (text) => process.stderr.write(text),
    );
  } catch (error) {
    if (error instanceof HttpError) {
      // A refusal inside a 2xx answer (a vendor service) has only the service's words.
      const status = error.status < 400 ? 'refused' : String(error.status);
      const head = `${status}${error.code !== undefined ? ` ${error.code}` : ''}`;
      const words = error.serviceMessage ?? error.message;
      // An error page's words often start with its status ("404 Not Found"): said once.
      process.stderr.write(
        `pipelinectl: ${words.startsWith(`${head} `) ? words : `${head} ${words}`}\n`,
      );
      process.exitCode = 1;
    } else if (error instanceof PipelineKitError) {
      process.stderr.write(`pipelinectl: ${error.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(
        `pipelinectl: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exitCode = 2;
    }
  }
}
