import { createHash, randomBytes } from 'node:crypto';
import type { Role } from '../../kit/wire.ts';
import type { Clock } from '../clock.ts';
import { prepared, type Db } from '../db/sqlite.ts';

export type SessionKind = 'mc' | 'fs';

export interface Session {
  readonly userName: string;
  readonly role: Role;
  readonly kind: SessionKind;
  readonly expires: number;
}

const hashOf = (id: string): string => createHash('sha256').update(id, 'utf8').digest('base64url');

/**
 * Sessions of the management console (Part A: idle timeout, each use extends it) and the
 * flow service (Part B: absolute lifetime). Stored with hashed ids, so they survive a
 * restart and a copy of the database cannot be used to take one over.
 */
export class SessionStore {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  open(kind: SessionKind, userName: string, minutes: number): string {
    const id = randomBytes(32).toString('base64url');
    const now = this.clock.now().getTime();
    const timeout = minutes * 60_000;
    prepared(
      this.db,
      'INSERT INTO SESSIONS (IDHASH, KIND, USERNAME, CREATED, LASTUSED, TIMEOUTMS, EXPIRES) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ).run(hashOf(id), kind, userName, now, now, timeout, now + timeout);
    this.sweep(now);
    return id;
  }

  /** The live session of that kind, extended when it is an idle-timeout one; else undefined. */
  use(kind: SessionKind, id: string): Session | undefined {
    const now = this.clock.now().getTime();
    const row = prepared(
      this.db,
      `SELECT s.USERNAME, s.KIND, s.EXPIRES, s.TIMEOUTMS, u.ROLE FROM SESSIONS s JOIN USERS u ON u.NAME = s.USERNAME
       WHERE s.IDHASH = ? AND s.KIND = ?`,
    ).get(hashOf(id), kind) as
      | { USERNAME: string; KIND: SessionKind; EXPIRES: number; TIMEOUTMS: number; ROLE: Role }
      | undefined;
    if (!row || row.EXPIRES <= now) return undefined;
    let expires = row.EXPIRES;
    if (kind === 'mc') {
      expires = now + row.TIMEOUTMS;
      prepared(this.db, 'UPDATE SESSIONS SET LASTUSED = ?, EXPIRES = ? WHERE IDHASH = ?').run(
        now,
        expires,
        hashOf(id),
      );
    }
    return { userName: row.USERNAME, role: row.ROLE, kind: row.KIND, expires };
  }

  /** Ends a session; false when there was no live one of that kind. */
  close(kind: SessionKind, id: string): boolean {
    const now = this.clock.now().getTime();
    return (
      prepared(this.db, 'DELETE FROM SESSIONS WHERE IDHASH = ? AND KIND = ? AND EXPIRES > ?').run(
        hashOf(id),
        kind,
        now,
      ).changes > 0
    );
  }

  /**
   * Signs a session out, telling `seen` whose it was (for the audit log) before it goes;
   * false when there was no live one of that kind.
   */
  signOut(kind: SessionKind, id: string, seen: (userName: string) => void): boolean {
    const session = this.use(kind, id);
    if (session) seen(session.userName);
    return this.close(kind, id);
  }

  private sweep(now: number): void {
    prepared(this.db, 'DELETE FROM SESSIONS WHERE EXPIRES <= ?').run(now);
  }
}
