import pg from 'pg';
import { storable, StoreUnavailable, type Sql, type SqlValue } from '../db/sql.ts';

// PostgreSQL's BIGINT (epoch milliseconds, COUNT(*)) and NUMERIC arrive as text by default:
// every number this store keeps fits a JavaScript number.
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return Number;
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

/** `?` placeholders numbered as PostgreSQL wants them (`$1`, `$2`…), outside quotes. */
export function numbered(sql: string): string {
  let n = 0;
  let out = '';
  let quote: string | undefined;
  for (const c of sql) {
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '?') {
      out += `$${++n}`;
      continue;
    }
    out += c;
  }
  return out;
}

const texts = new Map<string, string>();
const textOf = (sql: string): string => {
  let text = texts.get(sql);
  if (text === undefined) {
    text = numbered(sql);
    texts.set(sql, text);
  }
  return text;
};

/**
 * Errors that mean "the database is not there now" (as opposed to a fault of the query):
 * the connection refused, lost or timed out, the server shutting down or starting up.
 */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    if (/^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|EAI_AGAIN)$/.test(code))
      return true;
    // Class 08: connection exception; 57P0x: admin/crash shutdown, cannot connect now.
    if (code.startsWith('08') || /^57P0[1-3]$/.test(code)) return true;
  }
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error/i.test(
    message,
  );
}

export interface PostgresPool {
  readonly sql: Sql;
  readonly pool: pg.Pool;
  end(): Promise<void>;
}

/**
 * A pool of connections to `url`, and the portable SQL of sql.ts over it. A lost server
 * never throws out of the pool (its idle clients' errors are logged and the clients
 * dropped); the calls made while it is gone fail with StoreUnavailable, and the pool
 * connects anew by itself once it is back.
 */
export function postgresPool(
  url: string,
  maskedUrl: string,
  log: (message: string) => void,
  options: { max?: number } = {},
): PostgresPool {
  const pool = new pg.Pool({
    connectionString: url,
    types,
    max: options.max ?? 10,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    // A half-open connection (a cable pulled) is noticed instead of waited on forever.
    keepAlive: true,
    query_timeout: 30_000,
    application_name: 'pipeline-gateway',
  });
  pool.on('error', (error) => log(`database ${maskedUrl}: ${error.message}`));
  const unavailable = (error: unknown): never => {
    if (isConnectionError(error))
      throw new StoreUnavailable(maskedUrl, error instanceof Error ? error.message : String(error));
    throw error;
  };
  const over = (target: pg.Pool | pg.PoolClient, inTransaction: boolean): Sql => {
    const client: Sql = {
      engine: 'postgres',
      async all<T>(sql: string, params: readonly SqlValue[] = []) {
        try {
          return (await target.query(textOf(sql), storable(params) as SqlValue[])).rows as T[];
        } catch (error) {
          return unavailable(error);
        }
      },
      async get<T>(sql: string, params: readonly SqlValue[] = []) {
        return (await client.all<T>(sql, params))[0];
      },
      async run(sql, params = []) {
        try {
          return (await target.query(textOf(sql), storable(params) as SqlValue[])).rowCount ?? 0;
        } catch (error) {
          return unavailable(error);
        }
      },
      async transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
        if (inTransaction) return work(client);
        let connection: pg.PoolClient;
        try {
          connection = await pool.connect();
        } catch (error) {
          return unavailable(error);
        }
        let broken: unknown;
        try {
          await connection.query('BEGIN');
          const result = await work(over(connection, true));
          await connection.query('COMMIT');
          return result;
        } catch (error) {
          await connection.query('ROLLBACK').catch((rollbackError: unknown) => {
            broken = rollbackError;
          });
          return unavailable(error);
        } finally {
          // A connection that failed its rollback is not given to the next caller.
          connection.release(broken instanceof Error ? broken : undefined);
        }
      },
    };
    return client;
  };
  return { sql: over(pool, false), pool, end: () => pool.end() };
}
