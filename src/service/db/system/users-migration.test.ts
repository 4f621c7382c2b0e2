import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { addUser, hashPassword, listUsers, removeUser } from '../../auth/users.ts';
import { startService } from '../../testing/service.ts';
import { migrate } from '../sqlite.ts';
import { systemMigrations } from './migrations.ts';

/*
 * Migration 8 (people by identity, contract section 12) over a system database of users
 * from before it: local users, a single-sign-on user bound by name alone, two names that
 * differ only by case, and their open sessions.
 */

const PASSWORD = 'a-long-password-1';
const hashOf = (id: string) => createHash('sha256').update(id, 'utf8').digest('base64url');
const form = (fields: Record<string, string>): RequestInit => ({
  method: 'POST',
  body: new URLSearchParams(fields),
});

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A data folder whose system database is as version 6 left it, with these users. */
async function folderOfVersion6(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pipeline-users-v6-'));
  folders.push(dataDir);
  const db = new Database(join(dataDir, 'system.db'));
  db.pragma('foreign_keys = ON');
  migrate(
    db,
    systemMigrations.filter((m) => m.version <= 6),
  );
  const hash = await hashPassword(PASSWORD);
  const user = db.prepare(
    'INSERT INTO USERS (NAME, PASSWORDHASH, ROLE, CREATED) VALUES (?, ?, ?, ?)',
  );
  user.run('admin', hash, 'administrator', '2024-01-01T00:00:00.000Z');
  user.run('alice', hash, 'operator', '2024-01-02T00:00:00.000Z');
  user.run('Alice', hash, 'developer', '2024-01-03T00:00:00.000Z');
  user.run('ALICE', hash, 'operator', '2024-01-04T00:00:00.000Z');
  user.run('otto', '!oidc', 'administrator', '2024-01-05T00:00:00.000Z');
  user.run('robot', '', 'operator', '2024-01-06T00:00:00.000Z');
  const session = db.prepare(
    `INSERT INTO SESSIONS (IDHASH, KIND, USERNAME, CREATED, LASTUSED, TIMEOUTMS, EXPIRES)
     VALUES (?, 'mc', ?, ?, ?, ?, ?)`,
  );
  const now = Date.now();
  for (const [id, name] of [
    ['session-of-admin', 'admin'],
    ['session-of-big-alice', 'Alice'],
    ['session-of-otto', 'otto'],
  ] as const)
    session.run(hashOf(id), name, now, now, 30 * 60_000, now + 30 * 60_000);
  db.close();
  return dataDir;
}

describe('system migration 8: users by identity', () => {
  it('keeps local users and their sessions, renames names equal but for case, and drops single-sign-on users bound by name alone', async () => {
    const dataDir = await folderOfVersion6();
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    const service = await startService({ dataDir }).finally(() =>
      process.off('warning', onWarning),
    );
    try {
      const db = service.app.context.shared;
      expect(
        (await listUsers(db)).map((u) => [u.name, u.role, u.external, u.hasPassword, u.created]),
      ).toEqual([
        ['ALICE-3', 'operator', false, true, '2024-01-04T00:00:00.000Z'],
        ['Alice-2', 'developer', false, true, '2024-01-03T00:00:00.000Z'],
        ['admin', 'administrator', false, true, '2024-01-01T00:00:00.000Z'],
        ['alice', 'operator', false, true, '2024-01-02T00:00:00.000Z'],
        ['robot', 'operator', false, false, '2024-01-06T00:00:00.000Z'],
      ]);
      expect(warnings).toContainEqual(
        'user names are unique regardless of case now: Alice is now Alice-2, ALICE is now ALICE-3 (each keeps its password, roles and sessions)',
      );

      // Open sessions go on, as the same users (a renamed one under its new name).
      const who = async (id: string) => {
        const response = await service.fetch('/mcapi/auth/session', {
          headers: { 'X-As-SessionId': id },
        });
        return response.status === 200
          ? ((await response.json()) as { result: { data: { userName: string } } }).result.data
              .userName
          : response.status;
      };
      expect(await who('session-of-admin')).toBe('admin');
      expect(await who('session-of-big-alice')).toBe('Alice-2');
      // A single-sign-on user bound by name alone is gone with its session: which account
      // it was is unknown, so its next sign-in creates it again, bound to that account.
      expect(await who('session-of-otto')).toBe(401);

      // Passwords still work, the renamed user's under its new name.
      for (const userName of ['admin', 'Alice-2']) {
        const login = await service.fetch('/mcapi/auth/login', {
          ...form({ userName, password: PASSWORD }),
        });
        expect(login.status, userName).toBe(200);
      }
      // New users get IDs of their own, never one given before, and names stay unique.
      const ids = (await listUsers(db)).map((u) => u.id);
      await addUser(db, 'bob', PASSWORD, 'operator', 'now');
      const bob = (await listUsers(db)).find((u) => u.name === 'bob');
      expect(ids).not.toContain(bob?.id);
      expect(bob?.id).toBeGreaterThan(Math.max(...ids));
      await expect(addUser(db, 'Bob', PASSWORD, 'operator', 'now')).rejects.toThrow(
        'the name Bob is taken by user bob',
      );
    } finally {
      await service.close();
    }
  });

  it('a removed user takes their sessions along, and their ID is not given again', async () => {
    const dataDir = await folderOfVersion6();
    const service = await startService({ dataDir });
    try {
      const db = service.app.context.shared;
      const robot = (await listUsers(db)).find((u) => u.name === 'robot');
      const before = Math.max(...(await listUsers(db)).map((u) => u.id));
      await removeUser(db, 'admin');
      const gone = await service.fetch('/mcapi/auth/session', {
        headers: { 'X-As-SessionId': 'session-of-admin' },
      });
      expect(gone.status).toBe(401);
      await removeUser(db, 'robot');
      await addUser(db, 'robot', PASSWORD, 'operator', 'now');
      const again = (await listUsers(db)).find((u) => u.name === 'robot');
      expect(again?.id).toBeGreaterThan(before);
      expect(again?.id).not.toBe(robot?.id);
    } finally {
      await service.close();
    }
  });
});
