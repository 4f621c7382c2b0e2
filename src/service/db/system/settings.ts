import { prepared, type Db } from '../sqlite.ts';

export function getSetting(db: Db, name: string): string | null {
  const row = prepared(db, 'SELECT VALUE AS value FROM SETTING WHERE NAME = ?').get(name) as
    { value: string | null } | undefined;
  return row ? row.value : null;
}

export function setSetting(db: Db, name: string, value: string | null): void {
  prepared(
    db,
    'INSERT INTO SETTING (NAME, VALUE) VALUES (?, ?) ON CONFLICT (NAME) DO UPDATE SET VALUE = excluded.VALUE',
  ).run(name, value);
}
