import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { leaseHolder } from '../db/leases.ts';
import { postgresPool } from '../store/postgres-sql.ts';
import { freePort } from './child.ts';

// A throwaway PostgreSQL cluster for tests and benchmarks (issue 28): Debian's binaries,
// initdb in a temporary folder, a free loopback port, password authentication, removed
// after. PostgreSQL refuses to run as root, so as root the cluster runs as the `postgres`
// user the Debian package creates.

export const PG_USER = 'pipeline';
export const PG_PASSWORD = 'cluster-password-for-tests';

export interface PostgresCluster {
  readonly port: number;
  /** The URL of the cluster's `postgres` database. */
  readonly adminUrl: string;
  /** A new, empty database of its own and its URL. */
  freshDatabase(): Promise<string>;
  /** Stops the server the hard way (SIGKILL), as a crash or a pulled cable would. */
  kill(): Promise<void>;
  /** Starts the server again on the same port and folder. */
  start(): Promise<void>;
  /** Stops the server and removes its folder. */
  remove(): Promise<void>;
}

/** The folder of Debian's PostgreSQL binaries (the newest version), or PG_BIN. */
export function postgresBin(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0] === undefined)
    throw new Error(
      `PostgreSQL is not installed (no ${root}/<version>/bin/initdb): apt-get install postgresql`,
    );
  return join(root, versions[0], 'bin');
}

const asRoot = userInfo().uid === 0;

/** argv run as the cluster's owner: ourselves, or `postgres` when we are root. */
function owned(argv: readonly string[]): [string, string[]] {
  return asRoot
    ? ['runuser', ['-u', 'postgres', '--', ...argv]]
    : [argv[0] as string, argv.slice(1)];
}

let databases = 0;

export async function startPostgres(): Promise<PostgresCluster> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'pipeline-pg-'));
  const data = join(dir, 'data');
  const pwfile = join(dir, 'pwfile');
  writeFileSync(pwfile, PG_PASSWORD);
  if (asRoot) {
    chownSync(dir, postgresUid(), postgresGid());
    chownSync(pwfile, postgresUid(), postgresGid());
  }
  chmodSync(dir, 0o700);
  const [cmd, args] = owned([
    join(bin, 'initdb'),
    '-D',
    data,
    '-U',
    PG_USER,
    '--pwfile',
    pwfile,
    '--auth',
    'scram-sha-256',
    '--no-sync',
    '-E',
    'UTF8',
    '--locale',
    'C',
  ]);
  const init = spawnSync(cmd, args, { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  const port = await freePort();
  let server: ChildProcess | undefined;
  const adminUrl = `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/postgres`;

  async function start(): Promise<void> {
    const [command, argv] = owned([
      join(bin, 'postgres'),
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'max_connections=200',
    ]);
    // Its own process group, so that a kill takes the postmaster and its backends at once.
    const child = spawn(command, argv, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    let log = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-4000);
    });
    server = child;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const client = new pg.Client({ connectionString: adminUrl });
      try {
        await client.connect();
        await client.end();
        return;
      } catch (error) {
        await client.end().catch(() => undefined);
        if (child.exitCode !== null || Date.now() > deadline)
          throw new Error(`postgres did not start: ${String(error)}\n${log}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  async function kill(): Promise<void> {
    const child = server;
    server = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // The whole group: runuser, the postmaster and every backend, as a crash would.
    const group = postmasterPid(data);
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // Already gone.
    }
    if (group !== undefined) await gone(group);
    await exited;
    // What a killed postmaster leaves behind would stop the next start.
    rmSync(join(data, 'postmaster.pid'), { force: true });
    rmSync(join(dir, `.s.PGSQL.${port}.lock`), { force: true });
  }

  await start();
  return {
    port,
    adminUrl,
    async freshDatabase() {
      const name = `test_${process.pid}_${++databases}`;
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/${name}`;
    },
    kill,
    start,
    async remove() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postmasterPid(data: string): number | undefined {
  const pidFile = join(data, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Resolves once no process has this pid (signal 0 probes without signalling). */
async function gone(pid: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function postgresUid(): number {
  return Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
}

function postgresGid(): number {
  return Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
}

/** Who holds a lease in that database now (its holder names host, pid and start). */
export async function leaseHolderIn(url: string, name: string): Promise<string | undefined> {
  const { sql, end } = postgresPool(url, url, () => undefined, { max: 1 });
  try {
    return await leaseHolder(sql, name, Date.now());
  } finally {
    await end();
  }
}
