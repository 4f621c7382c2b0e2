import { isIP } from 'node:net';
import { parseArgs } from 'node:util';
import { passwordProblem } from './auth/users.ts';
import { readServicesFile, singleUpstream, type ServiceEntry } from './gateway/services.ts';
import { isStatusWord, parseStatusesFlag } from './gateway/status-semantics.ts';
import type { ServiceLimits } from './limits.ts';
import { checkTarget } from './notify/notifier.ts';
import type { NotifyRules } from './notify/rules.ts';
import { readOidcSettings, type OidcSettings } from './auth/oidc-config.ts';
import { parseDatabaseUrl } from './store/database-url.ts';

export interface CliConfig {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  /** The shared PostgreSQL of several gateways (checked), or undefined for SQLite. */
  readonly databaseUrl: string | undefined;
  readonly apiKey: string | undefined;
  readonly adminPassword: string | undefined;
  readonly demo: boolean;
  readonly pipelinesFile: string | undefined;
  readonly workers: number;
  readonly auditDays: number;
  readonly metricsKey: string | undefined;
  readonly notify: {
    readonly targets: readonly string[];
    readonly publicUrl: string | undefined;
    readonly rules: NotifyRules;
  };
  readonly oidc: OidcSettings | undefined;
  /** Services to stand in front of; undefined for the embedded service alone. */
  readonly services: readonly ServiceEntry[] | undefined;
  readonly buildIfMissing: boolean;
  readonly help: boolean;
  /** Only the bounds given on the command line or in the environment. */
  readonly limits: Partial<ServiceLimits>;
  /** Proxies (addresses, CIDRs or proxy-addr's names) whose X-Forwarded-For is believed. */
  readonly trustProxy: readonly string[];
  /** Path everything is served under (`/pipelines`), or '' for the root. */
  readonly basePath: string;
  readonly logFormat: LogFormat;
  readonly logLevel: string;
}

export type LogFormat = 'json' | 'pretty';

export const USAGE = `Usage: npm start -- [options]

Runs the embedded pipeline service and serves the dashboard.

Options (each also read from the environment variable in brackets; a flag wins):
  --port <n>              port to listen on [PORT] (default 25080)
  --host <address>        address to listen on [HOST] (default 127.0.0.1)
  --data <folder>         databases, inbox/ and outbox/ [PIPELINE_DATA_DIR] (default ./data)
  --database <url>        keep users, sessions, tokens, audit and bulk jobs in this PostgreSQL,
                          postgres://user:password@host:port/db, shared by several gateways
                          [PIPELINE_DATABASE_URL] (default: SQLite in the data folder)
  --api-key <key>         provision this API key and enable the pipeline API [PIPELINE_API_KEY]
  --admin-password <pw>   password of the first administrator, admin [PIPELINE_ADMIN_PASSWORD]
  --no-demo               no demo pipelines, inputs or requests [PIPELINE_NO_DEMO=1]
  --pipelines <file>      pipeline definition file (YAML or JSON) [PIPELINE_DEFINITIONS]
  --workers <n>           requests run at once [PIPELINE_WORKERS] (default 2)
  --audit-days <n>        days the audit log keeps its entries [PIPELINE_AUDIT_DAYS] (default 90)
  --upstream <url>        stand in front of this pipeline service instead of running one [PIPELINE_UPSTREAM_URL]
  --upstream-key <key>    its API key, kept on the server [PIPELINE_UPSTREAM_KEY]
  --upstream-poll-s <n>   seconds between rounds of its request index's poller [PIPELINE_UPSTREAM_POLL_S] (default 5)
  --upstream-failed <w,w> its status words for a failed request, notified [PIPELINE_UPSTREAM_FAILED] (default Error)
  --upstream-statuses <s> what its other status words mean, e.g. 'failed=Error,Abort;running=Running;cancellable=Wait,Running'
                          (classes failed, waiting, running, final, retryable, cancellable) [PIPELINE_UPSTREAM_STATUSES]
  --upstream-zone <zone>  its time zone (IANA name), when its own dates should not be trusted to tell [PIPELINE_UPSTREAM_ZONE]
  --upstream-file-names on|off  ask finished requests' file names, within the evidence budget, so search finds them (default on) [PIPELINE_UPSTREAM_FILE_NAMES]
  --services <file>       several services, as a YAML list (docs/gateway.md) [PIPELINE_SERVICES]
  --metrics-key <key>     ask for Authorization: Bearer <key> on /metrics [PIPELINE_METRICS_KEY]
  --notify <url>          POST failed requests to this webhook; repeatable [PIPELINE_NOTIFY, comma-separated]
  --notify-suspended      also notify when a pipeline is suspended [PIPELINE_NOTIFY_SUSPENDED=1]
  --notify-unreachable-min <n>  also notify when an upstream is unreachable n minutes [PIPELINE_NOTIFY_UNREACHABLE_MIN]
  --public-url <url>      the dashboard's address, for links in notifications [PIPELINE_PUBLIC_URL]
  --oidc-issuer <url>     sign in through this OpenID provider too [PIPELINE_OIDC_ISSUER]
  --oidc-client-id <id>   this server's client id there [PIPELINE_OIDC_CLIENT_ID]
  --oidc-client-secret <s> its client secret (prefer the variable) [PIPELINE_OIDC_CLIENT_SECRET]
  --oidc-role-claim <c>   the claim with the user's groups [PIPELINE_OIDC_ROLE_CLAIM] (default groups)
  --oidc-roles <map>      claim values to roles: 'admins=administrator,*=operator' [PIPELINE_OIDC_ROLES];
                          value=service:role gives a role on one service: 'prod-ops=prod:operator'
  --oidc-name <name>      the provider's name on the sign-in button [PIPELINE_OIDC_NAME]
  --trust-proxy <list>    proxies whose X-Forwarded-For is believed: addresses or CIDRs,
                          comma-separated, e.g. 127.0.0.1,10.0.0.0/8 [PIPELINE_TRUST_PROXY] (default none)
  --base-path <path>      serve everything under this path, e.g. /pipelines [PIPELINE_BASE_PATH]
                          (default: the root)
  --log-format <f>        json or pretty [PIPELINE_LOG_FORMAT] (default json, pretty on a terminal);
                          the level is LOG_LEVEL's (default info: one access line per request)
  --help                  this text

Bounds (docs/operations.md, "Service options"):
  --max-record-kb <n>     longest CSV record or JSON line of an input [PIPELINE_MAX_RECORD_KB] (default 1024)
  --max-field-kb <n>      longest CSV field [PIPELINE_MAX_FIELD_KB] (default 1024)
  --max-answer-mb <n>     largest answer; bigger pages are refused [PIPELINE_MAX_ANSWER_MB] (default 64)
  --answer-cache-mb <n>   memory for cached answers [PIPELINE_ANSWER_CACHE_MB] (default 64)
  --answer-cache-entry-mb <n>  largest answer kept in that cache [PIPELINE_ANSWER_CACHE_ENTRY_MB] (default 4)
  --max-connections <n>   open connections at once [PIPELINE_MAX_CONNECTIONS] (default 1000)
  --headers-timeout-s <n> time to send request headers [PIPELINE_HEADERS_TIMEOUT_S] (default 10)
  --request-timeout-s <n> time to send a whole request [PIPELINE_REQUEST_TIMEOUT_S] (default 30)
  --upstream-timeout-s <n> time an upstream service has to answer [PIPELINE_UPSTREAM_TIMEOUT_S] (default 15)
  --upstream-max-mb <n>   largest answer read from an upstream [PIPELINE_UPSTREAM_MAX_MB] (default 256)
  --upstream-max-value-mb <n>  longest single value (a text, an attribute) read from an upstream, in Mi
                          characters [PIPELINE_UPSTREAM_MAX_VALUE_MB] (default 1)
  --upstream-concurrency <n>  calls at once to one upstream [PIPELINE_UPSTREAM_CONCURRENCY] (default 4)
`;

/** parseArgs' options of flags that take a value, their names kept in the values' type. */
export function stringFlags<const Flag extends string>(
  flags: readonly Flag[],
): Record<Flag, { type: 'string' }> {
  return Object.fromEntries(flags.map((flag) => [flag, { type: 'string' }])) as Record<
    Flag,
    { type: 'string' }
  >;
}

/** Single sign-on flags and their variables. */
const OIDC_FLAGS: readonly [string, string][] = [
  ['oidc-issuer', 'PIPELINE_OIDC_ISSUER'],
  ['oidc-client-id', 'PIPELINE_OIDC_CLIENT_ID'],
  ['oidc-client-secret', 'PIPELINE_OIDC_CLIENT_SECRET'],
  ['oidc-role-claim', 'PIPELINE_OIDC_ROLE_CLAIM'],
  ['oidc-roles', 'PIPELINE_OIDC_ROLES'],
  ['oidc-name', 'PIPELINE_OIDC_NAME'],
];

/** Bound flags: option name, environment variable, limit field, unit in that field, range. */
export const BOUNDS: readonly [string, string, keyof ServiceLimits, number, number, number][] = [
  ['max-record-kb', 'PIPELINE_MAX_RECORD_KB', 'maxRecordChars', 1024, 1, 1024 * 1024],
  ['max-field-kb', 'PIPELINE_MAX_FIELD_KB', 'maxFieldChars', 1024, 1, 1024 * 1024],
  ['max-answer-mb', 'PIPELINE_MAX_ANSWER_MB', 'maxAnswerBytes', 1 << 20, 1, 256],
  ['answer-cache-mb', 'PIPELINE_ANSWER_CACHE_MB', 'answerCacheBytes', 1 << 20, 0, 4096],
  [
    'answer-cache-entry-mb',
    'PIPELINE_ANSWER_CACHE_ENTRY_MB',
    'answerCacheEntryBytes',
    1 << 20,
    0,
    256,
  ],
  ['max-connections', 'PIPELINE_MAX_CONNECTIONS', 'maxConnections', 1, 1, 1_000_000],
  ['headers-timeout-s', 'PIPELINE_HEADERS_TIMEOUT_S', 'headersTimeoutMs', 1000, 1, 3600],
  ['request-timeout-s', 'PIPELINE_REQUEST_TIMEOUT_S', 'requestTimeoutMs', 1000, 1, 3600],
  ['upstream-timeout-s', 'PIPELINE_UPSTREAM_TIMEOUT_S', 'upstreamTimeoutMs', 1000, 1, 600],
  ['upstream-max-mb', 'PIPELINE_UPSTREAM_MAX_MB', 'upstreamMaxBytes', 1 << 20, 1, 4096],
  [
    'upstream-max-value-mb',
    'PIPELINE_UPSTREAM_MAX_VALUE_MB',
    'upstreamMaxValueChars',
    1 << 20,
    1,
    256,
  ],
  ['upstream-concurrency', 'PIPELINE_UPSTREAM_CONCURRENCY', 'upstreamConcurrency', 1, 1, 64],
];

function integer(name: string, text: string, min: number, max: number): number {
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new Error(
      `${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(text)}`,
    );
  }
  return Number(text);
}

/** proxy-addr's names for ranges (Fastify's trustProxy takes them as they are). */
const PROXY_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * `--trust-proxy`: each entry an IP address, a CIDR (address/bits) or one of proxy-addr's
 * names. Checked here, so that a typing mistake stops the start naming the flag instead of
 * surfacing as proxy-addr's own error, or worse, as a proxy silently not believed.
 */
export function readTrustProxy(text: string | undefined): string[] {
  if (text === undefined || text.trim() === '') return [];
  return text.split(',').map((raw) => {
    const entry = raw.trim();
    if (PROXY_RANGES.has(entry)) return entry;
    const [address = '', bits, ...more] = entry.split('/');
    const family = isIP(address);
    const maxBits = family === 6 ? 128 : 32;
    if (
      family === 0 ||
      more.length > 0 ||
      (bits !== undefined && (!/^\d{1,3}$/.test(bits) || Number(bits) > maxBits))
    )
      throw new Error(
        `--trust-proxy: ${JSON.stringify(entry)} is not an IP address or a CIDR (such as 10.0.0.0/8); give a comma-separated list`,
      );
    return entry;
  });
}

/** `--base-path`: `/a/b`, segments of URL-safe characters; '' when not given. */
export function readBasePath(text: string | undefined): string {
  // An empty variable (an environment file's `PIPELINE_BASE_PATH=`) is no base path.
  if (text === undefined || text === '') return '';
  if (!text.startsWith('/'))
    throw new Error(
      `--base-path must start with /, as in /pipelines (not ${JSON.stringify(text)})`,
    );
  if (text === '/') throw new Error('--base-path /: leave the flag out to serve at the root');
  if (text.endsWith('/'))
    throw new Error(
      `--base-path must not end with /: give ${JSON.stringify(text.replace(/\/+$/, ''))}`,
    );
  const segments = text.slice(1).split('/');
  if (segments.some((s) => !/^[\w~-][\w.~-]*$/.test(s) || /^\.+$/.test(s)))
    throw new Error(
      `--base-path: ${JSON.stringify(text)} may hold only letters, digits, - _ . ~ between its slashes`,
    );
  return text;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Reads flags and environment; throws an Error naming the bad option. */
export function readConfig(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  /** Whether stdout is a terminal: pretty logs there, JSON lines anywhere else. */
  terminal = false,
): CliConfig {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      // prettier-ignore
      ...stringFlags([
        'port', 'host', 'data', 'database', 'api-key', 'admin-password', 'pipelines', 'workers',
        'audit-days', 'upstream', 'upstream-key', 'upstream-poll-s', 'upstream-failed',
        'upstream-statuses', 'upstream-zone', 'upstream-file-names', 'services', 'metrics-key',
        'notify-unreachable-min', 'public-url', 'trust-proxy', 'base-path', 'log-format',
      ]),
      ...stringFlags(OIDC_FLAGS.map(([flag]) => flag)),
      ...stringFlags(BOUNDS.map(([flag]) => flag)),
      notify: { type: 'string', multiple: true },
      'no-demo': { type: 'boolean' },
      'notify-suspended': { type: 'boolean' },
      'build-if-missing': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  const apiKey = values['api-key'] ?? env.PIPELINE_API_KEY;
  if (apiKey !== undefined && !/^[\x21-\x7e]{16,256}$/.test(apiKey)) {
    throw new Error('--api-key must be 16 to 256 printable ASCII characters without spaces');
  }
  const limits: Partial<Record<keyof ServiceLimits, number>> = {};
  for (const [flag, variable, field, unit, min, max] of BOUNDS) {
    const text = (values as Record<string, string | boolean | undefined>)[flag] ?? env[variable];
    if (typeof text === 'string') limits[field] = integer(`--${flag}`, text, min, max) * unit;
  }
  const upstream = values.upstream ?? env.PIPELINE_UPSTREAM_URL;
  const servicesFile = values.services ?? env.PIPELINE_SERVICES;
  /** A flag of the one upstream: given without --upstream, it belongs in the services file. */
  const ofUpstream = (
    flag: `upstream-${'poll-s' | 'failed' | 'statuses' | 'zone' | 'file-names'}`,
    variable: string,
    servicesFileField: string,
  ): string | undefined => {
    const text = values[flag] ?? env[variable];
    if (text !== undefined && upstream === undefined)
      throw new Error(
        `--${flag} goes with --upstream; in a services file, give ${servicesFileField} per service`,
      );
    return text;
  };
  const pollSeconds = ofUpstream('upstream-poll-s', 'PIPELINE_UPSTREAM_POLL_S', 'pollSeconds');
  const failedWords = ofUpstream('upstream-failed', 'PIPELINE_UPSTREAM_FAILED', 'failedStatuses');
  const failedStatuses = failedWords?.split(',').map((word) => word.trim());
  if (failedStatuses?.some((word) => !isStatusWord(word)))
    throw new Error(
      '--upstream-failed: status words of 1 to 64 characters of one line, comma-separated',
    );
  const statusesText = ofUpstream('upstream-statuses', 'PIPELINE_UPSTREAM_STATUSES', 'statuses');
  const statuses = statusesText === undefined ? undefined : parseStatusesFlag(statusesText);
  const zone = ofUpstream('upstream-zone', 'PIPELINE_UPSTREAM_ZONE', 'zone');
  const fileNamesText = ofUpstream(
    'upstream-file-names',
    'PIPELINE_UPSTREAM_FILE_NAMES',
    'fileNames',
  );
  if (fileNamesText !== undefined && fileNamesText !== 'on' && fileNamesText !== 'off')
    throw new Error(`--upstream-file-names: on or off, not ${JSON.stringify(fileNamesText)}`);
  if (upstream !== undefined && servicesFile !== undefined)
    throw new Error(
      '--upstream and --services exclude each other: list the one service in the file',
    );
  const services =
    servicesFile !== undefined
      ? readServicesFile(servicesFile, env)
      : upstream !== undefined
        ? [
            singleUpstream(
              upstream,
              values['upstream-key'] ?? env.PIPELINE_UPSTREAM_KEY,
              pollSeconds === undefined
                ? undefined
                : integer('--upstream-poll-s', pollSeconds, 1, 3600),
              failedStatuses,
              zone,
              statuses,
              fileNamesText === undefined ? undefined : fileNamesText === 'on',
            ),
          ]
        : undefined;
  const pipelinesFile = values.pipelines ?? env.PIPELINE_DEFINITIONS;
  if (pipelinesFile !== undefined && services !== undefined && !services.some((s) => s.embedded))
    throw new Error(
      '--pipelines defines pipelines of the embedded service, which a gateway without one does not run',
    );
  const unreachable = values['notify-unreachable-min'] ?? env.PIPELINE_NOTIFY_UNREACHABLE_MIN;
  const adminPassword = values['admin-password'] ?? env.PIPELINE_ADMIN_PASSWORD;
  const adminProblem = adminPassword === undefined ? undefined : passwordProblem(adminPassword);
  if (adminProblem) throw new Error(`--admin-password: ${adminProblem}`);
  const logFormat =
    values['log-format'] ?? env.PIPELINE_LOG_FORMAT ?? (terminal ? 'pretty' : 'json');
  if (logFormat !== 'json' && logFormat !== 'pretty')
    throw new Error(`--log-format must be json or pretty, not ${JSON.stringify(logFormat)}`);
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!LOG_LEVELS.includes(logLevel))
    throw new Error(
      `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not ${JSON.stringify(logLevel)}`,
    );
  return {
    trustProxy: readTrustProxy(values['trust-proxy'] ?? env.PIPELINE_TRUST_PROXY),
    basePath: readBasePath(values['base-path'] ?? env.PIPELINE_BASE_PATH),
    logFormat,
    logLevel,
    host: values.host ?? env.HOST ?? '127.0.0.1',
    port: integer('--port', values.port ?? env.PORT ?? '25080', 0, 65535),
    dataDir: values.data ?? env.PIPELINE_DATA_DIR ?? 'data',
    databaseUrl: readDatabaseUrl(values.database ?? env.PIPELINE_DATABASE_URL),
    apiKey,
    adminPassword,
    demo: !(values['no-demo'] ?? ['1', 'true'].includes(env.PIPELINE_NO_DEMO ?? '')),
    pipelinesFile,
    workers: integer('--workers', values.workers ?? env.PIPELINE_WORKERS ?? '2', 1, 64),
    auditDays: integer(
      '--audit-days',
      values['audit-days'] ?? env.PIPELINE_AUDIT_DAYS ?? '90',
      1,
      36_500,
    ),
    buildIfMissing: values['build-if-missing'] ?? false,
    help: values.help ?? false,
    limits,
    services,
    metricsKey: values['metrics-key'] ?? env.PIPELINE_METRICS_KEY,
    oidc: readOidcSettings(
      Object.fromEntries(
        OIDC_FLAGS.map(([flag, variable]) => [
          flag,
          ((values as Record<string, unknown>)[flag] as string | undefined) ?? env[variable],
        ]),
      ),
    ),
    notify: {
      targets: (
        values.notify ??
        (env.PIPELINE_NOTIFY ?? '')
          .split(',')
          .map((t) => t.trim())
          .filter((t) => t !== '')
      ).map(checkTarget),
      publicUrl: (values['public-url'] ?? env.PIPELINE_PUBLIC_URL)?.replace(/\/+$/, ''),
      rules: {
        suspended:
          values['notify-suspended'] ?? ['1', 'true'].includes(env.PIPELINE_NOTIFY_SUSPENDED ?? ''),
        unreachableMinutes:
          unreachable === undefined
            ? undefined
            : integer('--notify-unreachable-min', unreachable, 1, 10_080),
      },
    },
  };
}

/** `--database`: checked now, so a mistyped URL stops the start naming the flag. */
function readDatabaseUrl(text: string | undefined): string | undefined {
  return text === undefined || text === '' ? undefined : parseDatabaseUrl(text).url;
}
