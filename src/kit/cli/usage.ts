import { parseArgs } from 'node:util';
import { DATABASE_NAMES } from '../index.ts';
import { SHELLS, type CommandSpec, type OptionSpec } from './completion.ts';

// What pipelinectl takes: its commands, options and usage text, its exit statuses, and the
// readers of option values that turn a mistake into a UsageError before anything is sent.

/** A mistake in the command line (exit 2): said before anything is sent to the service. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** No command at all: the whole usage text goes with the message. */
export class NoCommand extends UsageError {}

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
export const COMMANDS: Readonly<Record<string, CommandSpec>> = {
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
export const OPTIONS = {
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

export const USAGE = `Usage: pipelinectl <command> [arguments] [options]

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
  requests [--date yyyymmdd] [--pipeline <id>] [--index n] [--page-size n]
                                         requests of a day, newest first
  requeststats [--date yyyymmdd] [--pipeline <id>]
                                         a day's exact counts per pipeline, hour and status
  bulk <retry|cancel> --date yyyymmdd [--pipeline <id>] [--status S,..] [--q text]
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
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * A whole number option between `min` and `max`, or a usage error naming it: never NaN
 * sent on or taken as "off".
 */
export function wholeNumber(
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
export function seconds(option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d+(\.\d+)?$/.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(n) || n * 1000 > Number.MAX_SAFE_INTEGER)
    throw new UsageError(`${option} takes a number of seconds (0 = no limit), not '${value}'`);
  return n;
}

/** Status words of --ok-status, or a usage error. */
export function statusWords(option: string, value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const words = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (words.length === 0) throw new UsageError(`${option} takes status words, S,..`);
  return words;
}

/** The command line read by OPTIONS: its values and its positionals. */
export function parseCommandLine(argv: readonly string[]) {
  return parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true });
}

export type OptionValues = ReturnType<typeof parseCommandLine>['values'];
