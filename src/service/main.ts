import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp, DIST_DIR, REPO_ROOT } from './app.ts';
import { readConfig, USAGE } from './config.ts';
import { prettyStream } from './log-format.ts';

// stdout carries the service's log lines and nothing else (JSON lines by default, which a
// log shipper reads as they are); everything said to a person goes to stderr.
const say = (text: string): void => void process.stderr.write(text);

async function main(): Promise<void> {
  let config;
  try {
    config = readConfig(process.argv.slice(2), process.env, process.stdout.isTTY === true);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (config.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (config.buildIfMissing && !existsSync(join(DIST_DIR, 'index.html'))) {
    say('Building the dashboard (first start only)…\n');
    const built = spawnSync(
      process.execPath,
      [join(REPO_ROOT, 'node_modules/vite/bin/vite.js'), 'build'],
      {
        cwd: REPO_ROOT,
        // vite's report goes to stderr with the rest of what is said to a person.
        stdio: ['ignore', 2, 2],
      },
    );
    if (built.status !== 0)
      process.stderr.write('The dashboard did not build; the service starts without it.\n');
  }

  const app = await buildApp({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    apiKey: config.apiKey,
    adminPassword: config.adminPassword,
    demo: config.demo,
    pipelinesFile: config.pipelinesFile,
    workers: config.workers,
    auditRetentionDays: config.auditDays,
    services: config.services,
    metricsKey: config.metricsKey,
    notify: config.notify,
    oidc: config.oidc,
    limits: config.limits,
    staticDir: DIST_DIR,
    basePath: config.basePath,
    trustProxy: config.trustProxy,
    logger: {
      level: config.logLevel,
      ...(config.logFormat === 'pretty' ? { stream: prettyStream(process.stdout) } : {}),
    },
  });
  const address = await app.server.listen({ host: config.host, port: config.port });
  // The first request should not wait for a reader thread to start.
  if (app.context.services.hasEmbedded) app.engine.warmUp();
  const url = `${address.replace('://[::1]', '://localhost').replace('://127.0.0.1', '://localhost')}${config.basePath}`;
  const key = app.context.access.key;
  const lines = [
    '',
    `  Pipeline service ${app.context.version} is running.`,
    `  Dashboard:     ${url}/`,
    `  Pipeline API:  ${url}/pipelineapi/list/xml`,
    `  API document:  ${url}/openapi.json (rendered at ${url}/docs)`,
    ...app.context.services
      .list()
      .filter((s) => !s.embedded)
      .map(
        (s) =>
          `  In front of:   ${s.id} (${s.name}) ${s.reachable ? `version ${s.version}` : `NOT REACHABLE: ${s.message}`}`,
      ),
    // A key is a secret: shown to a person at a terminal, never into a journal or a file.
    `  API key:       ${!app.context.access.enabled || !key ? '(pipeline API disabled)' : process.stderr.isTTY ? key : '(set; an administrator sees it on the Settings page)'}`,
    // The generated password lives in its 0600 file only (auth/first-admin.ts).
    ...(app.initialAdminPassword
      ? [
          `  Sign in as admin with the password in ${join(app.context.paths.data, 'initial-admin-password')}`,
        ]
      : []),
    ...(app.apiKeyIgnored
      ? [
          '  (--api-key was not used: this data folder already has a key, which only an',
          '   administrator changes, in the Settings page; the current one is shown above)',
        ]
      : []),
    ...(config.oidc
      ? [
          `  Single sign-on: ${config.oidc.name} (callback ${config.notify.publicUrl ?? url}/mcapi/auth/oidc/callback)`,
        ]
      : []),
    `  Data folder:   ${app.context.paths.data}`,
    ...(app.store.engine === 'postgres' ? [`  Shared state:  ${app.store.name}`] : []),
    '',
  ];
  say(`${lines.join('\n')}\n`);

  let closing = false;
  const shutdown = (signal: string): void => {
    if (closing) {
      // A second signal means now: the databases' WAL keeps committed work whole anyway.
      process.stderr.write(`${signal} again: exiting at once.\n`);
      process.exit(1);
    }
    closing = true;
    say(`${signal}: stopping at the next batch boundary…\n`);
    setTimeout(() => {
      process.stderr.write('Running requests did not stop within 30 s; exiting anyway.\n');
      process.exit(1);
    }, 30_000).unref();
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(
    `The service could not start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
