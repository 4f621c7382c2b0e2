import type { Role } from '../../../kit/wire.ts';
import { scalar, type Sql } from '../sql.ts';

// Roles per service (contract section 12): a user's role on one service, over the default
// role USERS.ROLE holds. Read at each call, so a grant or a revoke holds from the next one.

export interface ServiceRole {
  readonly service: string;
  readonly role: Role;
}

/** The user's own role on a service, or undefined when they have only their default there. */
export async function grantedRole(
  sql: Sql,
  userName: string,
  service: string,
): Promise<Role | undefined> {
  return scalar<Role>(
    sql,
    'SELECT ROLE FROM USER_SERVICE_ROLE WHERE USERNAME = ? AND SERVICE = ?',
    [userName, service],
  );
}

/** Every role a user was given per service, by service id. */
export async function grantedRoles(sql: Sql, userName: string): Promise<ServiceRole[]> {
  return sql.all<ServiceRole>(
    'SELECT SERVICE AS "service", ROLE AS "role" FROM USER_SERVICE_ROLE WHERE USERNAME = ? ORDER BY SERVICE',
    [userName],
  );
}

/** Gives a user a role on a service, replacing the one they had there; false: no such user. */
export function grantRole(
  sql: Sql,
  userName: string,
  service: string,
  role: Role,
): Promise<boolean> {
  return sql.transaction(async (tx) => {
    if (!(await tx.get('SELECT 1 AS "one" FROM USERS WHERE NAME = ?', [userName]))) return false;
    await tx.run(
      `INSERT INTO USER_SERVICE_ROLE (USERNAME, SERVICE, ROLE) VALUES (?, ?, ?)
       ON CONFLICT (USERNAME, SERVICE) DO UPDATE SET ROLE = excluded.ROLE`,
      [userName, service, role],
    );
    return true;
  });
}

/** Takes a user's role on a service away (their default holds there again); false: none. */
export async function revokeRole(sql: Sql, userName: string, service: string): Promise<boolean> {
  return (
    (await sql.run('DELETE FROM USER_SERVICE_ROLE WHERE USERNAME = ? AND SERVICE = ?', [
      userName,
      service,
    ])) > 0
  );
}

/** Sets a user's roles per service to exactly these (a single sign-on's mapping gives them). */
export function replaceGrantedRoles(
  sql: Sql,
  userName: string,
  roles: readonly ServiceRole[],
): Promise<void> {
  return sql.transaction(async (tx) => {
    await tx.run('DELETE FROM USER_SERVICE_ROLE WHERE USERNAME = ?', [userName]);
    for (const { service, role } of roles)
      await tx.run('INSERT INTO USER_SERVICE_ROLE (USERNAME, SERVICE, ROLE) VALUES (?, ?, ?)', [
        userName,
        service,
        role,
      ]);
  });
}
