import type { Sql } from '../sql.ts';

export async function getSetting(sql: Sql, name: string): Promise<string | null> {
  const row = await sql.get<{ value: string | null }>(
    'SELECT VALUE AS "value" FROM SETTING WHERE NAME = ?',
    [name],
  );
  return row ? row.value : null;
}

export async function setSetting(sql: Sql, name: string, value: string | null): Promise<void> {
  await sql.run(
    'INSERT INTO SETTING (NAME, VALUE) VALUES (?, ?) ON CONFLICT (NAME) DO UPDATE SET VALUE = excluded.VALUE',
    [name, value],
  );
}

/** The setting, written first with `make()` when it has none (the server's id, say). */
export async function settingOnce(sql: Sql, name: string, make: () => string): Promise<string> {
  const value = await getSetting(sql, name);
  if (value !== null) return value;
  await setSetting(sql, name, make());
  return (await getSetting(sql, name)) as string;
}
