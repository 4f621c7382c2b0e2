import { randomUUID } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import fastifyHelmet from '@fastify/helmet';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { ErrorCode, MC_SESSION_HEADER } from '../kit/wire.ts';
import { ApiAccess, newSecret } from './auth/api-access.ts';
import { mayCall } from './auth/permissions.ts';
import { SessionStore } from './auth/sessions.ts';
import { addUser, countUsers, passwordProblem } from './auth/users.ts';
import { FLOWAPI_PREFIX, flowApiRoutes, renderPartBError } from './flowapi/routes.ts';
import { MCAPI_PREFIX, mcapiRoutes, renderPartAError } from './mcapi/routes.ts';
import { ServiceTime, systemClock, type Clock } from './clock.ts';
import type { DataPaths, ServiceContext } from './context.ts';
import { openDatabases, type Databases } from './db/databases.ts';
import { getSetting, setSetting } from './db/system/settings.ts';
import { upsertPipeline } from './db/system/pipelines.ts';
import { createRequest } from './db/status/requests.ts';
import { Engine } from './engine/engine.ts';
import { ApiError } from './errors.ts';
import { installErrorHandler } from './errors-handler.ts';
import { DEFAULT_LIMITS, type ServiceLimits } from './limits.ts';
import { parseForm } from './form.ts';
import { loadDefinitionFile, toRecord } from './pipelines/definition.ts';
import {
  PIPELINE_API_PREFIX,
  pipelineApiRoutes,
  type ExtraAuthenticator,
} from './pipelineapi/routes.ts';

const here = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(here, '../..');
export const DEMO_DIR = join(here, 'demo');
export const DIST_DIR = join(REPO_ROOT, 'dist');

export const BODY_LIMIT = 1024 * 1024;

const API_PREFIXES = [FLOWAPI_PREFIX, MCAPI_PREFIX, PIPELINE_API_PREFIX];

export interface AppConfig {
  /** Folder of the three databases, `inbox/` and `outbox/`. */
  readonly dataDir: string;
  /** Provision this key and enable the pipeline API. */
  readonly apiKey?: string | undefined;
  readonly adminPassword?: string | undefined;
  /** Load the demo pipelines and inputs and run a few requests on first start. */
  readonly demo: boolean;
  /** Extra pipeline definition file. */
  readonly pipelinesFile?: string | undefined;
  readonly workers?: number | undefined;
  readonly batchSize?: number | undefined;
  readonly clock?: Clock | undefined;
  readonly timeZone?: string | undefined;
  /** Built dashboard to serve at `/`; nothing is served there when absent. */
  readonly staticDir?: string | undefined;
  readonly logger?: FastifyServerOptions['logger'];
  /** Shown by Part A login; the host name by default. */
  readonly serverName?: string | undefined;
  /** Sign-in attempts per client address and window (ms) on each Part's login. */
  readonly loginLimit?: { max: number; timeWindow: number } | undefined;
  /** Overrides of the default bounds on inputs, answers and connections. */
  readonly limits?: Partial<ServiceLimits> | undefined;
}

export interface App {
  readonly server: FastifyInstance;
  readonly context: ServiceContext;
  readonly engine: Engine;

  /** The generated password of `admin` when this start created that user. */
  readonly initialAdminPassword: string | undefined;
  /** True when a key was given but one already existed, so the given one was not used. */
  readonly apiKeyIgnored: boolean;
  close(): Promise<void>;
}

export const VERSION: string = (
  JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

function loadPipelines(dbs: Databases, files: readonly string[], stamp: string): void {
  for (const file of files) {
    for (const def of loadDefinitionFile(file)) upsertPipeline(dbs.system, toRecord(def), stamp);
  }
}

function seedDemoInbox(paths: DataPaths): void {
  const source = join(DEMO_DIR, 'inbox');
  for (const name of readdirSync(source)) {
    const target = join(paths.inbox, name);
    if (!existsSync(target)) copyFileSync(join(source, name), target);
  }
}

/** First start with the demo: a few requests, one of them bound to fail (no such file). */
function seedDemoRequests(context: ServiceContext): void {
  if (getSetting(context.dbs.system, 'demoSeeded') === 'true') return;
  const now = context.clock.now();
  const runs: [string, string, Record<string, string>][] = [
    ['pl_1', 'orders.csv', { minAmount: '10', region: 'EU' }],
    ['pl_2', 'readings.jsonl', {}],
    ['pl_3', 'customers.csv', {}],
    ['pl_1', 'orders.csv', { minAmount: '250', region: 'US' }],
    ['pl_2', 'readings-missing.jsonl', {}],
    ['pl_4', 'orders.csv', {}],
  ];
  for (const [pipelineId, filename, args] of runs) {
    createRequest(context.dbs.status, {
      pipelineId,
      filename,
      args,
      day: context.time.day(now),
      hour: context.time.hour(now),
      stamp: context.time.stamp(now),
    });
  }
  setSetting(context.dbs.system, 'demoSeeded', 'true');
}

/** First start without users: `admin` with the given password, or a random one kept in a 0600 file. */
async function ensureAdmin(
  dbs: Databases,
  dataDir: string,
  password: string | undefined,
  now: string,
): Promise<string | undefined> {
  if (countUsers(dbs.system) > 0) return undefined;
  const problem = password === undefined ? undefined : passwordProblem(password);
  if (problem) throw new Error(`the administrator's password: ${problem}`);
  const chosen = password ?? newSecret().slice(0, 20);
  await addUser(dbs.system, 'admin', chosen, 'administrator', now);
  if (password !== undefined) return undefined;
  writeFileSync(join(dataDir, 'initial-admin-password'), `${chosen}\n`, { mode: 0o600 });
  return chosen;
}

/** Builds the service from a config; tests and main.ts both start here. */
export async function buildApp(config: AppConfig): Promise<App> {
  const dataDir = resolve(config.dataDir);
  const paths: DataPaths = {
    data: dataDir,
    inbox: join(dataDir, 'inbox'),
    outbox: join(dataDir, 'outbox'),
  };
  mkdirSync(paths.inbox, { recursive: true });
  mkdirSync(paths.outbox, { recursive: true });
  const dbs = openDatabases(dataDir);
  const clock = config.clock ?? systemClock;
  const limits: ServiceLimits = { ...DEFAULT_LIMITS, ...config.limits };
  const time = new ServiceTime(config.timeZone);
  try {
    if (!getSetting(dbs.system, 'serverId')) setSetting(dbs.system, 'serverId', randomUUID());
    const access = new ApiAccess(dbs.system, clock);

    // The key flag only provisions: once a key exists, an administrator's reissue or
    // disabling outlives every restart with the flag still on the command line.
    const apiKeyIgnored = config.apiKey !== undefined && access.key !== null;
    if (config.apiKey !== undefined && access.key === null) {
      access.reissue(config.apiKey);
      access.setEnabled(true);
    } else if (config.demo && access.key === null) {
      access.setEnabled(true);
    }
    const definitionFiles = [
      ...(config.demo ? [join(DEMO_DIR, 'pipelines.yaml')] : []),
      ...(config.pipelinesFile ? [resolve(config.pipelinesFile)] : []),
    ];
    loadPipelines(dbs, definitionFiles, clock.now().toISOString());
    if (config.demo) seedDemoInbox(paths);

    const engine = new Engine({
      dbs,
      clock,
      time,
      paths,
      workers: config.workers,
      batchSize: config.batchSize,
      limits,
      log: (message, error) => server.log.error({ err: error }, message),
    });
    const initialAdminPassword = await ensureAdmin(
      dbs,
      dataDir,
      config.adminPassword,
      clock.now().toISOString(),
    );
    const sessions = new SessionStore(dbs.system, clock);
    const context: ServiceContext = {
      dbs,
      clock,
      time,
      access,
      engine,
      version: VERSION,
      paths,
      sessions,
      serverName: config.serverName ?? hostname(),
      serverId: getSetting(dbs.system, 'serverId') as string,
      limits,
    };
    const sessionAuth: ExtraAuthenticator = (request, operation) => {
      const id = request.headers[MC_SESSION_HEADER.toLowerCase()];
      if (typeof id !== 'string' || id === '') return undefined;
      const session = sessions.use('mc', id);
      if (!session)
        throw new ApiError(
          401,
          ErrorCode.BadCredentials,
          'The management console session has expired or ended; sign in again.',
        );
      if (!mayCall(session.role, operation)) {
        throw new ApiError(
          403,
          ErrorCode.RoleForbidden,
          `The ${session.role} role may not call ${operation}.`,
        );
      }
      return { via: 'session', role: session.role };
    };
    const loginLimit = config.loginLimit ?? { max: 20, timeWindow: 60_000 };

    const server = Fastify({
      logger: config.logger ?? false,
      bodyLimit: BODY_LIMIT,
      // A slow client (headers or body trickling in) is cut off instead of holding a
      // connection; Node checks these every connectionsCheckingInterval.
      requestTimeout: limits.requestTimeoutMs,
      http: {
        // Long query strings reach the parameter checks (and their 400) instead of Node's bare 431.
        maxHeaderSize: 64 * 1024,
        headersTimeout: limits.headersTimeoutMs,
        connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
      },
      routerOptions: { querystringParser: parseForm },
    });
    server.server.maxConnections = limits.maxConnections;
    server.removeAllContentTypeParsers();
    await server.register(fastifyHelmet, {
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          // React and uPlot set styles through the CSSOM (element.style), which CSP allows;
          // no inline <style> or style="" markup is needed.
          styleSrc: ["'self'"],
          imgSrc: ["'self'", 'data:'],
          fontSrc: ["'self'"],
          connectSrc: ["'self'"],
          objectSrc: ["'none'"],
          baseUri: ["'none'"],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
        },
      },
      // The service speaks plain HTTP unless a proxy in front terminates TLS; that proxy,
      // not this process, decides about HSTS. Upgrading requests would break plain HTTP.
      strictTransportSecurity: false,
      frameguard: { action: 'deny' },
    });
    // Answers of the three APIs carry session ids, the API key or operations data: no
    // browser or proxy keeps a copy of them.
    server.addHook('onSend', async (request, reply, payload) => {
      if (API_PREFIXES.some((p) => request.url === p || request.url.startsWith(`${p}/`)))
        void reply.header('cache-control', 'no-store');
      return payload;
    });
    await server.register(fastifyFormbody, { bodyLimit: BODY_LIMIT, parser: parseForm });
    await server.register(fastifyCookie);
    installErrorHandler(server, {
      [MCAPI_PREFIX]: renderPartAError,
      [FLOWAPI_PREFIX]: renderPartBError,
    });
    // Only the login routes opt in (per-route config); the limit is per client address, so
    // failures from elsewhere never lock the real user out, and it lifts after the window.
    await server.register(fastifyRateLimit, {
      global: false,
      keyGenerator: (request) => request.ip,
      errorResponseBuilder: (_request, context) =>
        new ApiError(
          429,
          4029,
          `Too many sign-in attempts from this address; try again in ${Math.ceil(context.ttl / 1000)} s.`,
        ),
    });
    await server.register(pipelineApiRoutes(context, sessionAuth));
    await server.register(mcapiRoutes(context, loginLimit));
    await server.register(flowApiRoutes(context, loginLimit));

    if (config.staticDir && existsSync(join(config.staticDir, 'index.html'))) {
      await server.register(fastifyStatic, {
        root: config.staticDir,
        wildcard: false,
        index: 'index.html',
      });
    }
    server.setNotFoundHandler((request, reply) => {
      const isApi = API_PREFIXES.some((p) => request.url === p || request.url.startsWith(`${p}/`));
      if (
        !isApi &&
        request.method === 'GET' &&
        config.staticDir &&
        existsSync(join(config.staticDir, 'index.html'))
      ) {
        // Client-side routes of the dashboard: the app shell handles them.
        return reply.sendFile('index.html');
      }
      throw new ApiError(
        404,
        ErrorCode.UnknownApi,
        `Nothing at ${request.method} ${request.url.split('?')[0]}.`,
      );
    });

    await engine.recover();
    if (config.demo) seedDemoRequests(context);
    await server.ready();
    engine.wake();

    return {
      server,
      context,
      engine,

      initialAdminPassword,
      apiKeyIgnored,
      async close() {
        await server.close();
        await engine.shutdown();
        dbs.close();
      },
    };
  } catch (error) {
    dbs.close();
    throw error;
  }
}
