import {
  DEFAULT_ACCOUNT_LIMIT,
  DEFAULT_ADDRESS_LIMIT,
  GuessingLimit,
  type TryLimit,
} from './auth/guessing-limit.ts';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { AuditLog } from './audit/audit-log.ts';
import { ApiAccess } from './auth/api-access.ts';
import { ensureAdmin } from './auth/first-admin.ts';
import { bulkService } from './bulk/routes.ts';
import { managementConsoleSessions } from './auth/session-auth.ts';
import { SessionStore } from './auth/sessions.ts';
import { ServiceTime, systemClock, type Clock } from './clock.ts';
import type { ServiceContext } from './context.ts';
import { dataPaths } from './engine/control.ts';
import { openDatabases } from './db/databases.ts';
import { countByPipelineAndStatus } from './db/status/request-list.ts';
import { settingOnce } from './db/system/settings.ts';
import { DEMO_PIPELINES, seedDemoInbox, seedDemoRequests } from './demo/seed.ts';
import { Engine } from './engine/engine.ts';
import { installErrorHandler } from './errors-handler.ts';
import { FLOWAPI_PREFIX, flowService } from './flowapi/routes.ts';
import { RequestIndex } from './db/index/request-index.ts';
import { DEFAULT_POLL_SECONDS, ServiceDirectory } from './gateway/directory.ts';
import type { ServiceEntry } from './gateway/services.ts';
import { writesAccessLines } from './http/access-log.ts';
import type { CachedReads } from './http/cached-reads.ts';
import { httpServer } from './http/server.ts';
import { dashboardFiles } from './http/dashboard-files.ts';
import { healthRoutes } from './http/health.ts';
import { metricsRoutes, ServiceMetrics, upstreamDayCounts } from './http/metrics.ts';
import { apiScope, siteScope } from './http/security.ts';
import { DEFAULT_LIMITS, type ServiceLimits } from './limits.ts';
import { MCAPI_PREFIX, managementConsole } from './mcapi/routes.ts';
import { PIPELINE_API_PREFIX, pipelineApi, SERVICES_PREFIX } from './pipelineapi/routes.ts';
import { loadPipelines } from './pipelines/load.ts';
import { Notifier } from './notify/notifier.ts';
import { NotifyRuleWatcher, type NotifyRules } from './notify/rules.ts';
import { discoverProvider, oidcRoutes } from './mcapi/oidc.ts';
import { ProviderSignOut } from './auth/oidc-sign-out.ts';
import { checkMappedServices, type OidcSettings } from './auth/oidc-config.ts';
import { collectRoutes, openApiRoutes, type RegisteredRoute } from './openapi/routes.ts';
import { getPipeline } from './db/system/pipelines.ts';
import { SESSION_COOKIE } from '../kit/wire.ts';
import { openSharedStore, type SharedStore } from './store/shared-store.ts';

// Wiring only: each piece lives with its Part (routes), in auth/ (keys, sessions, the first
// administrator), in demo/ (seeding), in http/ (headers, the dashboard's files) or engine/.

const here = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(here, '../..');
// PIPELINE_DIST_DIR serves a dashboard built elsewhere (`vite build --outDir`), so that
// several checkouts' e2e runs on one machine do not rebuild each other's files.
export const DIST_DIR = process.env.PIPELINE_DIST_DIR
  ? resolve(process.env.PIPELINE_DIST_DIR)
  : join(REPO_ROOT, 'dist');

const API_PREFIXES = [PIPELINE_API_PREFIX, SERVICES_PREFIX, MCAPI_PREFIX, FLOWAPI_PREFIX];

export interface AppConfig {
  /** Folder of the three databases, `inbox/` and `outbox/`. */
  readonly dataDir: string;
  /**
   * A postgres:// URL holding the shared state (users, sessions, settings, tokens, audit,
   * bulk jobs, notification claims) that several gateways share (contract section 11);
   * absent: the system database.
   */
  readonly databaseUrl?: string | undefined;
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
  /** Serve everything under this path (`/pipelines`), nothing at the root; '' or absent: the root. */
  readonly basePath?: string | undefined;
  /** Proxies whose X-Forwarded-For is believed (addresses, CIDRs); none when absent. */
  readonly trustProxy?: readonly string[] | undefined;
  readonly logger?: FastifyServerOptions['logger'];
  /** Shown by Part A login; the host name by default. */
  readonly serverName?: string | undefined;
  /**
   * Sign-in attempts per client address and window (ms), counted together by every sign-in
   * route and every gateway of one store (auth/guessing-limit.ts).
   */
  readonly loginLimit?: TryLimit | undefined;
  /** Sign-in attempts per account name and window (ms), whatever the address. */
  readonly accountLoginLimit?: TryLimit | undefined;
  /**
   * The services this server answers for (contract section 7), the first one at plain
   * /pipelineapi. Absent: the embedded service alone, as `local`.
   */
  readonly services?: readonly ServiceEntry[] | undefined;
  /** Receivers of failed-request notifications (contract section 9). */
  readonly notify?:
    | {
        readonly targets: readonly string[];
        readonly publicUrl?: string | undefined;
        readonly retryDelaysMs?: readonly number[];
        readonly timeoutMs?: number;
        /** Events beside failed requests: a pipeline suspended, an upstream unreachable. */
        readonly rules?: NotifyRules | undefined;
      }
    | undefined;
  /** OpenID Connect sign-in beside local users (docs/operations.md "Single sign-on"). */
  readonly oidc?: OidcSettings | undefined;
  /** When set, GET /metrics asks for `Authorization: Bearer <key>`. */
  readonly metricsKey?: string | undefined;
  /** Days the audit log keeps its entries (default 90). */
  readonly auditRetentionDays?: number | undefined;
  /** Seconds between rounds of each upstream's index poller, unless its entry says. */
  readonly pollSeconds?: number | undefined;
  /** False: the index pollers run only when a test calls pollNow(). */
  readonly pollScheduled?: boolean | undefined;
  /** Overrides of the default bounds on inputs, answers and connections. */
  readonly limits?: Partial<ServiceLimits> | undefined;
  /**
   * False: cached Part C reads take Fastify's full request cycle too (http/cached-reads.ts),
   * so that a test can hold the two paths to the same answers. True by default.
   */
  readonly cachedReadsFirst?: boolean | undefined;
}

export interface App {
  readonly server: FastifyInstance;
  readonly context: ServiceContext;
  readonly engine: Engine;
  /** Where the shared state lives: the system database, or a shared PostgreSQL. */
  readonly store: SharedStore;

  /** The generated password of `admin` when this start created that user. */
  readonly initialAdminPassword: string | undefined;
  /** True when a key was given but one already existed, so the given one was not used. */
  readonly apiKeyIgnored: boolean;
  /** Looks for suspended pipelines now (the rule's timer does every 15 s). */
  watchPipelines(): void;
  /** Every route the server registered, for the test that holds /openapi.json to them. */
  readonly routes: readonly RegisteredRoute[];
  /** Cached Part C reads answered before Fastify's cycle (their count, for tests and the bench). */
  readonly cachedReads: CachedReads;
  close(): Promise<void>;
}

export const VERSION: string = (
  JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

/** Builds the service from a config; tests and main.ts both start here. */
export async function buildApp(config: AppConfig): Promise<App> {
  const dataDir = resolve(config.dataDir);
  const paths = dataPaths(dataDir);
  const services = config.services ?? [{ id: 'local', name: 'Embedded service', embedded: true }];
  checkMappedServices(config.oidc, services);
  // Before anything opens: a provider that cannot be read stops the start, naming the flag.
  const provider = config.oidc ? await discoverProvider(config.oidc) : undefined;
  const embedded = services.some((s) => s.embedded);
  // In front of other services only, no inbox or outbox of its own.
  if (embedded) {
    mkdirSync(paths.inbox, { recursive: true });
    mkdirSync(paths.outbox, { recursive: true });
  }
  const dbs = openDatabases(dataDir, { embedded });
  const clock = config.clock ?? systemClock;
  const limits: ServiceLimits = { ...DEFAULT_LIMITS, ...config.limits };
  const time = new ServiceTime(config.timeZone);
  let index: RequestIndex | undefined;
  let store: SharedStore | undefined;
  // Until the server (and its logger) exists, a lost connection is said on stderr.
  let storeLog = (message: string): void => void process.stderr.write(`${message}\n`);
  try {
    const openStore = await openSharedStore({
      databaseUrl: config.databaseUrl,
      system: dbs.system,
      log: (message) => storeLog(message),
    });
    store = openStore;
    const shared = openStore.sql;
    const serverId = await settingOnce(shared, 'serverId', randomUUID);
    const access = await ApiAccess.load(shared, clock);
    const demo = config.demo && embedded;
    // A gateway's people reach Part C through its own API setting: on from the first start.
    const apiKeyIgnored = await access.provision(config.apiKey, { demo: demo || !embedded });
    // A gateway has no pipelines of its own: its pipelines are the upstreams'.
    const definitionFiles = [
      ...(demo ? [DEMO_PIPELINES] : []),
      ...(config.pipelinesFile && embedded ? [resolve(config.pipelinesFile)] : []),
    ];
    loadPipelines(dbs, definitionFiles, clock.now().toISOString());
    if (demo) seedDemoInbox(paths);

    const embeddedId = services.find((e) => e.embedded)?.id ?? 'local';
    const metrics = new ServiceMetrics(async () => [
      ...(embedded
        ? countByPipelineAndStatus(dbs.status, time.day(clock.now())).map((c) => ({
            service: embeddedId,
            pipeline: c.pipelineId,
            status: c.status,
            count: c.count,
          }))
        : []),
      ...(await upstreamDayCounts(directory.pollers())),
    ]);
    const notifier = new Notifier(shared, clock, {
      targets: config.notify?.targets ?? [],
      serviceTargets: Object.fromEntries(services.map((s) => [s.id, s.notify ?? []])),
      publicUrl: config.notify?.publicUrl,
      retryDelaysMs: config.notify?.retryDelaysMs,
      timeoutMs: config.notify?.timeoutMs,
      log: (message, error) => server.log.warn({ err: error }, message),
    });
    const rules = new NotifyRuleWatcher(
      notifier,
      config.notify?.rules ?? {},
      clock,
      (path) => `${config.notify?.publicUrl ?? ''}${path}`,
    );
    const engine = new Engine({
      dbs,
      clock,
      time,
      paths,
      workers: config.workers,
      // Nothing runs without an embedded service: no reader threads either.
      readerThreads: embedded,
      batchSize: config.batchSize,
      limits,
      log: (message, error) => server.log.error({ err: error }, message),
      onRequestEnd: (ended) => {
        metrics.requestEnded(ended);
        notifier.requestEnded(
          ended,
          embeddedId,
          getPipeline(dbs.system, ended.pipelineId)?.name ?? '',
        );
      },
      onStatusChange: (pipelineId, status) => metrics.statusChanged(embeddedId, pipelineId, status),
    });
    const initialAdminPassword = await ensureAdmin(
      shared,
      dataDir,
      config.adminPassword,
      clock.now().toISOString(),
    );
    const sessions = new SessionStore(shared, clock);
    // Only a server in front of other services keeps an index of their requests.
    // Shared by the gateways on PostgreSQL (contract section 11), else a file of its own.
    index = services.some((s) => !s.embedded) ? RequestIndex.of(openStore, dataDir) : undefined;
    const directory = new ServiceDirectory(
      services,
      VERSION,
      time,
      () => clock.now(),
      {
        timeoutMs: limits.upstreamTimeoutMs,
        maxBytes: limits.upstreamMaxBytes,
        maxValueChars: limits.upstreamMaxValueChars,
        concurrency: limits.upstreamConcurrency,
      },
      (service, seconds, ok) => {
        metrics.upstreamChecked(service, seconds, ok);
        rules.upstreamChecked(
          directory.list().find((s) => s.id === service),
          ok,
        );
      },
      index && {
        index,
        pollSeconds: config.pollSeconds ?? DEFAULT_POLL_SECONDS,
        scheduled: config.pollScheduled,
        log: (message) => server.log.warn(message),
        // The poller has told failing from the service's own words (failedStatuses).
        onFailed: (service, request) =>
          notifier.requestEnded({ ...request, seconds: undefined }, service, request.name, true),
      },
    );
    for (const poller of directory.pollers())
      poller.statusChanged = (pipelineId, status) =>
        metrics.statusChanged(poller.service, pipelineId, status);
    const context: ServiceContext = {
      dbs,
      shared,
      clock,
      time,
      access,
      engine,
      version: VERSION,
      paths,
      sessions,
      serverName: config.serverName ?? hostname(),
      serverId,
      limits,
      services: directory,
      notifier,
      audit: new AuditLog(shared, clock, time, config.auditRetentionDays ?? 90, (m, e) =>
        server.log.error({ err: e }, m),
      ),
    };
    const guessing = new GuessingLimit(
      shared,
      clock,
      config.loginLimit ?? DEFAULT_ADDRESS_LIMIT,
      config.accountLoginLimit ?? DEFAULT_ACCOUNT_LIMIT,
    );
    const providerSignOut = provider
      ? new ProviderSignOut(provider, config.notify?.publicUrl)
      : undefined;
    const { server, cached } = await httpServer(config, limits, metrics);
    storeLog = (message) => server.log.warn(message);
    const routes = collectRoutes(server);
    const consoleSessions = managementConsoleSessions(sessions, shared);
    const partC = pipelineApi(
      context,
      directory,
      consoleSessions,
      bulkService(context, directory, consoleSessions),
    );
    const parts = [
      partC,
      managementConsole(context, guessing, providerSignOut),
      flowService(context, guessing),
    ];
    const errors = installErrorHandler(server);
    for (const part of parts) {
      for (const prefix of part.prefixes) errors.register(prefix, part.renderError);
      // Each Part in a scope of its own, whose hook gives its answers the API headers.
      await server.register(await apiScope(part.routes));
    }
    // On the root: its hook counts every answer, the Parts' and the pages'.
    metricsRoutes(server, metrics, config.metricsKey);
    // Everything else in a scope of its own, whose hook gives pages the page headers.
    await server.register(
      await siteScope(API_PREFIXES, async (site) => {
        oidcRoutes(
          site,
          context,
          guessing,
          config.oidc && provider && providerSignOut
            ? {
                settings: config.oidc,
                provider,
                publicUrl: config.notify?.publicUrl,
                signOut: providerSignOut,
              }
            : undefined,
        );
        healthRoutes(site, dbs, openStore, directory, () => clock.now());
        await openApiRoutes(site, VERSION, config.basePath ?? '');
        await dashboardFiles(site, config.staticDir, API_PREFIXES, config.basePath ?? '');
      }),
    );

    if (partC.cachedReads && config.cachedReadsFirst !== false)
      cached.start(
        partC.cachedReads,
        (header) => server.parseCookie(header)[SESSION_COOKIE],
        writesAccessLines(server) ? server.log : undefined,
      );
    if (embedded) {
      await engine.recover();
      if (demo) await seedDemoRequests(context);
    }
    await directory.start();
    await server.ready();
    if (embedded) engine.wake();
    const watchPipelines = () => rules.checkPipelines(dbs.system, embeddedId);
    let ruleTimer: NodeJS.Timeout | undefined;
    if (embedded && config.notify?.rules?.suspended) {
      watchPipelines();
      ruleTimer = setInterval(watchPipelines, 15_000);
      ruleTimer.unref();
    }
    // Another gateway on the same PostgreSQL may change the API settings.
    const stopSettings = openStore.engine === 'postgres' ? access.watch(server.log) : undefined;

    return {
      server,
      context,
      engine,
      store: openStore,
      initialAdminPassword,
      apiKeyIgnored,
      routes,
      cachedReads: cached,
      watchPipelines,
      async close() {
        if (ruleTimer) clearInterval(ruleTimer);
        stopSettings?.();
        await directory.stop();
        await server.close();
        await engine.shutdown();
        await notifier.settled();
        index?.close();
        await openStore.close();
        dbs.close();
      },
    };
  } catch (error) {
    index?.close();
    await store?.close();
    dbs.close();
    throw error;
  }
}
