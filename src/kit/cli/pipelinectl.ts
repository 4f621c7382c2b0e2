import {
  HttpError,
  KIT_VERSION,
  NetworkError,
  OK_STATUSES,
  ParseError,
  PipelineClient,
  TimeoutError,
  knownCharset,
  type Format,
} from '../index.ts';
import type { Command } from './command-run.ts';
import { SHELLS, completionScript, type Shell } from './completion.ts';
import { REQUEST_COMMANDS } from './request-commands.ts';
import { SERVICE_COMMANDS } from './service-commands.ts';
import {
  COMMANDS,
  EXIT,
  MAX_TIMER_MS,
  NoCommand,
  OPTIONS,
  USAGE,
  UsageError,
  parseCommandLine,
  seconds,
  statusWords,
  wholeNumber,
} from './usage.ts';

// pipelinectl: reads and checks the command line (usage.ts), runs the command
// (request-commands.ts, service-commands.ts) and says what went wrong and how it ends.

export { EXIT, UsageError } from './usage.ts';

/** Every command that calls the service, by name. */
const RUNNERS: Readonly<Record<string, Command>> = { ...REQUEST_COMMANDS, ...SERVICE_COMMANDS };

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
  const { values, positionals } = parseCommandLine(argv);
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

  const runner = Object.hasOwn(RUNNERS, command) ? RUNNERS[command] : undefined;
  if (runner === undefined)
    throw new UsageError(`unknown command ${command}; see pipelinectl --help`);
  return runner({
    client,
    command,
    target,
    extra,
    values,
    wire,
    page,
    okStatuses,
    waitTimeoutS,
    write,
    progress,
    out,
    done,
    need,
  });
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
