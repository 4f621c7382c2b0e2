import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../sqlite.ts';
import { sqliteSql } from '../sqlite-sql.ts';
import { systemMigrations } from './migrations.ts';
import {
  grantedRole,
  grantedRoles,
  grantRole,
  replaceGrantedRoles,
  revokeRole,
} from './service-roles.ts';

/*
 * Migration 7 (roles per service, contract section 12) over a system database as version 6
 * left it: the viewer becomes a role a user may have, roles per service have their table,
 * and every open session survives USERS being built anew.
 */

function version6(): Database.Database {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  migrate(
    db,
    systemMigrations.filter((m) => m.version <= 6),
  );
  db.prepare('INSERT INTO USERS (NAME, PASSWORDHASH, ROLE, CREATED) VALUES (?, ?, ?, ?)').run(
    'alice',
    'x',
    'operator',
    '2024-01-01T00:00:00.000Z',
  );
  db.prepare(
    `INSERT INTO SESSIONS (IDHASH, KIND, USERNAME, CREATED, LASTUSED, TIMEOUTMS, EXPIRES)
     VALUES ('h', 'mc', 'alice', 1, 1, 1800000, 9999999999999)`,
  ).run();
  return db;
}

describe('migration 7', () => {
  it('keeps users and their sessions, admits the viewer, and keeps roles per service with their user', async () => {
    const db = version6();
    expect(() =>
      db
        .prepare('INSERT INTO USERS (NAME, PASSWORDHASH, ROLE, CREATED) VALUES (?, ?, ?, ?)')
        .run('vera', 'x', 'viewer', 'now'),
    ).toThrow(/CHECK constraint failed/);
    migrate(
      db,
      systemMigrations.filter((m) => m.version <= 7),
    );
    expect(db.prepare('SELECT NAME, ROLE FROM USERS').all()).toEqual([
      { NAME: 'alice', ROLE: 'operator' },
    ]);
    expect(db.prepare('SELECT IDHASH, USERNAME FROM SESSIONS').all()).toEqual([
      { IDHASH: 'h', USERNAME: 'alice' },
    ]);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    db.prepare('INSERT INTO USERS (NAME, PASSWORDHASH, ROLE, CREATED) VALUES (?, ?, ?, ?)').run(
      'vera',
      'x',
      'viewer',
      'now',
    );

    const sql = sqliteSql(db);
    expect(await grantRole(sql, 'alice', 'prod', 'viewer')).toBe(true);
    expect(await grantRole(sql, 'alice', 'prod', 'developer')).toBe(true);
    expect(await grantRole(sql, 'nobody', 'prod', 'viewer')).toBe(false);
    expect(await grantedRole(sql, 'alice', 'prod')).toBe('developer');
    expect(await grantedRole(sql, 'alice', 'local')).toBeUndefined();
    await expect(grantRole(sql, 'alice', 'x', 'king' as 'viewer')).rejects.toThrow(/CHECK/);
    await replaceGrantedRoles(sql, 'vera', [
      { service: 'local', role: 'operator' },
      { service: 'prod', role: 'viewer' },
    ]);
    expect(await grantedRoles(sql, 'vera')).toEqual([
      { service: 'local', role: 'operator' },
      { service: 'prod', role: 'viewer' },
    ]);
    expect(await revokeRole(sql, 'vera', 'local')).toBe(true);
    expect(await revokeRole(sql, 'vera', 'local')).toBe(false);
    // A removed user's roles and sessions go with them.
    db.prepare("DELETE FROM USERS WHERE NAME = 'alice'").run();
    expect(await grantedRoles(sql, 'alice')).toEqual([]);
    expect(db.prepare('SELECT COUNT(*) FROM SESSIONS').pluck().get()).toBe(0);
    expect(await grantedRoles(sql, 'vera')).toEqual([{ service: 'prod', role: 'viewer' }]);
    db.close();
  });
});
