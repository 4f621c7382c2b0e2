import type { Sql } from '../sql.ts';

// Sign-in tries counted in the shared store (issue 39, item 7): per key (an address, an
// account name) and fixed window, so that every sign-in route and every gateway of one store
// count against the same limit.

/** Counts one more try under `key` in the window that began at `windowStart`; the count now. */
export async function countTry(sql: Sql, key: string, windowStart: number): Promise<number> {
  const row = await sql.get<{ COUNT: number }>(
    `INSERT INTO SIGN_IN_TRIES (KEY, WINDOWSTART, COUNT) VALUES (?, ?, 1)
     ON CONFLICT (KEY, WINDOWSTART) DO UPDATE SET COUNT = SIGN_IN_TRIES.COUNT + 1
     RETURNING COUNT AS "COUNT"`,
    [key, windowStart],
  );
  return Number(row?.COUNT ?? 0);
}

/** The tries counted under `key` in the window that began at `windowStart`. */
export async function triesIn(sql: Sql, key: string, windowStart: number): Promise<number> {
  const row = await sql.get<{ COUNT: number }>(
    'SELECT COUNT AS "COUNT" FROM SIGN_IN_TRIES WHERE KEY = ? AND WINDOWSTART = ?',
    [key, windowStart],
  );
  return Number(row?.COUNT ?? 0);
}

/** Forgets the windows that began before `before` (epoch ms). */
export async function forgetTries(sql: Sql, before: number): Promise<void> {
  await sql.run('DELETE FROM SIGN_IN_TRIES WHERE WINDOWSTART < ?', [before]);
}
