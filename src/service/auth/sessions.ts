import { createHash, randomBytes } from 'node:crypto';
import type { Role } from '../../kit/wire.ts';
import type { Clock } from '../clock.ts';
import type { Sql } from '../db/sql.ts';
import {
  deleteExpiredSessions,
  deleteSession,
  insertSession,
  sessionRow,
  touchSession,
} from '../db/system/users.ts';

export type SessionKind = 'mc' | 'fs';

/** An idle-timeout session's expiry is pushed on at most this often. */
const TOUCH_EVERY_MS = 15_000;

export interface Session {
  /** The user the session belongs to; the name and role below are that user's now. */
  readonly userId: number;
  readonly userName: string;
  readonly role: Role;
  readonly kind: SessionKind;
  readonly expires: number;
}

const hashOf = (id: string): string => createHash('sha256').update(id, 'utf8').digest('base64url');

/**
 * A management console session as work done later on its behalf names it (a bulk job,
 * auth/credential-end.ts): by its stored hash, never the id itself.
 */
export const sessionCredential = (id: string): string => `session ${hashOf(id)}`;

/**
 * Sessions of the management console (Part A: idle timeout, each use extends it) and the
 * flow service (Part B: absolute lifetime). Stored with hashed ids, so they survive a
 * restart and a copy of the database cannot be used to take one over. A session belongs to
 * its user's row (its ID), not to a name: whoever signs in later, under whatever name,
 * never changes whose it is, and its user's name and role are read at each use.
 */
export class SessionStore {
  constructor(
    private readonly sql: Sql,
    private readonly clock: Clock,
  ) {}

  async open(kind: SessionKind, userId: number, minutes: number): Promise<string> {
    const id = randomBytes(32).toString('base64url');
    const now = this.clock.now().getTime();
    await insertSession(this.sql, {
      idHash: hashOf(id),
      kind,
      userId,
      now,
      timeoutMs: minutes * 60_000,
    });
    await deleteExpiredSessions(this.sql, now);
    return id;
  }

  /** The live session of that kind, extended when it is an idle-timeout one; else undefined. */
  async use(kind: SessionKind, id: string): Promise<Session | undefined> {
    const now = this.clock.now().getTime();
    const row = await sessionRow(this.sql, hashOf(id), kind);
    if (!row || row.EXPIRES <= now) return undefined;
    let expires = row.EXPIRES;
    // Extended at most once a TOUCH_EVERY_MS: a read then costs no write (on a shared
    // PostgreSQL, a round trip and a row version per call), and the idle timeout is kept to
    // within that much.
    if (kind === 'mc' && now + row.TIMEOUTMS - row.EXPIRES >= TOUCH_EVERY_MS) {
      expires = now + row.TIMEOUTMS;
      await touchSession(this.sql, hashOf(id), now, expires);
    }
    return { userId: row.USERID, userName: row.NAME, role: row.ROLE, kind: row.KIND, expires };
  }

  /** Ends a session; false when there was no live one of that kind. */
  close(kind: SessionKind, id: string): Promise<boolean> {
    return deleteSession(this.sql, hashOf(id), kind, this.clock.now().getTime());
  }

  /**
   * Signs a session out, telling `seen` whose it was (for the audit log) before it goes;
   * false when there was no live one of that kind.
   */
  async signOut(kind: SessionKind, id: string, seen: (userName: string) => void): Promise<boolean> {
    const session = await this.use(kind, id);
    if (session) seen(session.userName);
    return this.close(kind, id);
  }
}
