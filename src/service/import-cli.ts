import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { stringFlags } from './config.ts';
import { INDEX_FILE } from './db/index/request-index.ts';
import { indexMigrations } from './db/index/migrations.ts';
import { openDatabase } from './db/sqlite.ts';
import { systemMigrations } from './db/system/migrations.ts';
import { openSharedStore } from './store/shared-store.ts';
import { importSqlite } from './store/import-sqlite.ts';

const USAGE = `Usage: npm run import-to-postgres -- --data <folder> --database <url>

Copies a gateway's shared state from its data folder's SQLite into the PostgreSQL that
several gateways will share (people, roles, sessions, the API settings and key, personal
tokens, the audit log, notifications, bulk jobs and the request index), once, before any
gateway starts on that database. All of it or nothing; a database that already holds any
of it is refused. Stop the gateway first.

Options:
  --data <folder>   the gateway's data folder [PIPELINE_DATA_DIR] (default ./data)
  --database <url>  postgres://user:password@host:port/db [PIPELINE_DATABASE_URL]
`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { ...stringFlags(['data', 'database']), help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const databaseUrl = values.database ?? (process.env.PIPELINE_DATABASE_URL || undefined);
  if (databaseUrl === undefined) throw new Error(`--database <url> is needed\n\n${USAGE}`);
  const dataDir = resolve(values.data ?? process.env.PIPELINE_DATA_DIR ?? 'data');
  const systemFile = join(dataDir, 'system.db');
  // Opening a missing file would create an empty one: nothing to import, said plainly.
  if (!existsSync(systemFile)) throw new Error(`--data ${dataDir} holds no system.db`);
  const system = openDatabase(systemFile, systemMigrations);
  const indexFile = join(dataDir, INDEX_FILE);
  const index = existsSync(indexFile) ? openDatabase(indexFile, indexMigrations) : undefined;
  let store;
  try {
    store = await openSharedStore({
      databaseUrl,
      system,
      log: (message) => process.stderr.write(`${message}\n`),
    });
    const counts = await importSqlite({ system, index, target: store.sql });
    for (const [table, rows] of Object.entries(counts)) {
      process.stdout.write(`${table}\t${rows}\n`);
    }
    process.stdout.write(`imported into ${store.name}\n`);
  } finally {
    await store?.close();
    index?.close();
    system.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `import-to-postgres: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
