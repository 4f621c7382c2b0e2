import type { Role } from '../../../kit/wire.ts';
import { prepared, type Db } from '../sqlite.ts';

// Roles per service (contract section 12): a user's role on one service, over the default
// role USERS.ROLE holds. Read at each call, so a grant or a revoke holds from the next one.

export interface ServiceRole {
  readonly service: string;
  readonly role: Role;
}

/** The user's own role on a service, or undefined when they have only their default there. */
export function grantedRole(db: Db, userName: string, service: string): Role | undefined {
  return prepared(db, 'SELECT ROLE FROM USER_SERVICE_ROLE WHERE USERNAME = ? AND SERVICE = ?')
    .pluck()
    .get(userName, service) as Role | undefined;
}

/** Every role a user was given per service, by service id. */
export function grantedRoles(db: Db, userName: string): ServiceRole[] {
  return (
    prepared(
      db,
      'SELECT SERVICE, ROLE FROM USER_SERVICE_ROLE WHERE USERNAME = ? ORDER BY SERVICE',
    ).all(userName) as { SERVICE: string; ROLE: Role }[]
  ).map((r) => ({ service: r.SERVICE, role: r.ROLE }));
}

/** Gives a user a role on a service, replacing the one they had there; false: no such user. */
export function grantRole(db: Db, userName: string, service: string, role: Role): boolean {
  return db.transaction(() => {
    if (!prepared(db, 'SELECT 1 FROM USERS WHERE NAME = ?').get(userName)) return false;
    prepared(
      db,
      `INSERT INTO USER_SERVICE_ROLE (USERNAME, SERVICE, ROLE) VALUES (?, ?, ?)
       ON CONFLICT (USERNAME, SERVICE) DO UPDATE SET ROLE = excluded.ROLE`,
    ).run(userName, service, role);
    return true;
  })();
}

/** Takes a user's role on a service away (their default holds there again); false: none. */
export function revokeRole(db: Db, userName: string, service: string): boolean {
  return (
    prepared(db, 'DELETE FROM USER_SERVICE_ROLE WHERE USERNAME = ? AND SERVICE = ?').run(
      userName,
      service,
    ).changes > 0
  );
}

/** Sets a user's roles per service to exactly these (a single sign-on's mapping gives them). */
export function replaceGrantedRoles(db: Db, userName: string, roles: readonly ServiceRole[]): void {
  db.transaction(() => {
    prepared(db, 'DELETE FROM USER_SERVICE_ROLE WHERE USERNAME = ?').run(userName);
    const insert = prepared(
      db,
      'INSERT INTO USER_SERVICE_ROLE (USERNAME, SERVICE, ROLE) VALUES (?, ?, ?)',
    );
    for (const { service, role } of roles) insert.run(userName, service, role);
  })();
}
