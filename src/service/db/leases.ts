import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { scalar, type Sql } from './sql.ts';

// Leases (contract section 11): work that one gateway at a time may do (polling an upstream,
// running a bulk job) is held under a named lease in the shared store. The holder renews it
// well within its time; when the holder dies, the lease runs out and another gateway takes
// it. Times are the gateways' clocks (epoch ms), so their clocks must agree to well within
// a lease's time (NTP does); a lone gateway on SQLite holds every lease it asks for.

/** This process, as a lease names its holder: readable in the table, unique per start. */
export const PROCESS_HOLDER = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;

/**
 * Takes the lease, or renews it when this holder has it, until `nowMs + ttlMs`; true then.
 * False while another holder's lease runs.
 */
export async function acquireLease(
  sql: Sql,
  name: string,
  holder: string,
  nowMs: number,
  ttlMs: number,
): Promise<boolean> {
  const changed = await sql.run(
    `INSERT INTO LEASE (NAME, HOLDER, EXPIRES) VALUES (?, ?, ?)
     ON CONFLICT (NAME) DO UPDATE SET HOLDER = excluded.HOLDER, EXPIRES = excluded.EXPIRES
     WHERE LEASE.HOLDER = excluded.HOLDER OR LEASE.EXPIRES < ?`,
    [name, holder, nowMs + ttlMs, nowMs],
  );
  return changed > 0;
}

/** Gives the lease up at once (a clean stop), so that another takes it without waiting. */
export async function releaseLease(sql: Sql, name: string, holder: string): Promise<void> {
  await sql.run('DELETE FROM LEASE WHERE NAME = ? AND HOLDER = ?', [name, holder]);
}

/** Who holds a lease now, or undefined when none does. */
export async function leaseHolder(
  sql: Sql,
  name: string,
  nowMs: number,
): Promise<string | undefined> {
  return scalar(sql, 'SELECT HOLDER FROM LEASE WHERE NAME = ? AND EXPIRES >= ?', [name, nowMs]);
}
