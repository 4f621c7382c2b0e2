import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sql } from '../db/sql.ts';
import { newSecret } from './api-access.ts';
import { addUser, countUsers, passwordProblem } from './users.ts';

/**
 * First start without users: `admin` with the given password, or a random one kept in a
 * 0600 file. Returns the generated password, to be shown once.
 */
export async function ensureAdmin(
  sql: Sql,
  dataDir: string,
  password: string | undefined,
  now: string,
): Promise<string | undefined> {
  if ((await countUsers(sql)) > 0) return undefined;
  const problem = password === undefined ? undefined : passwordProblem(password);
  if (problem) throw new Error(`the administrator's password: ${problem}`);
  const chosen = password ?? newSecret().slice(0, 20);
  await addUser(sql, 'admin', chosen, 'administrator', now);
  if (password !== undefined) return undefined;
  writeFileSync(join(dataDir, 'initial-admin-password'), `${chosen}\n`, { mode: 0o600 });
  return chosen;
}
