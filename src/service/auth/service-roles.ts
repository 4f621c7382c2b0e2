import {
  ErrorCode,
  ROLE_OPERATIONS,
  roleNeeded,
  type OperationName,
  type Role,
} from '../../kit/wire.ts';
import type { Sql } from '../db/sql.ts';
import { grantedRole } from '../db/system/service-roles.ts';
import { ApiError } from '../errors.ts';
import { findUser } from './users.ts';

/*
 * Roles per service (contract section 12). A person's role on a service is the one granted
 * to them there, else their default role; the embedded service is a service like the others
 * (its id is `local`). Every check reads it anew, so a grant, a revoke or a new default holds
 * from the next call on, for open sessions and running bulk jobs alike.
 */

/** Who is asking: a user's name and their default role (as a session carries them). */
export interface Person {
  readonly userName: string;
  readonly role: Role;
}

/** The role of this person on a service: the one granted there, else their default. */
export async function roleOn(sql: Sql, person: Person, service: string): Promise<Role> {
  return (await grantedRole(sql, person.userName, service)) ?? person.role;
}

/** The refusal of an operation to a role on a service: 403/1104 naming the role needed. */
export function roleRefusal(role: Role, operation: OperationName, service: string): ApiError {
  return new ApiError(
    403,
    ErrorCode.RoleForbidden,
    `${operation} on service ${service} needs the ${roleNeeded(operation)} role; the ${role} role there may not call it.`,
  );
}

/**
 * Refuses (403/1104) an operation this person's role on the service does not allow;
 * returns that role otherwise.
 */
export async function requireServiceRole(
  sql: Sql,
  person: Person,
  service: string,
  operation: OperationName,
): Promise<Role> {
  const role = await roleOn(sql, person, service);
  if (!ROLE_OPERATIONS[role].has(operation)) throw roleRefusal(role, operation, service);
  return role;
}

/**
 * Why a user may not (any longer) call an operation on a service, or undefined when they
 * still may: they were removed, or their role there no longer allows it. Read anew at each
 * call, for work that goes on after its request was answered (a bulk job's batches).
 */
export async function lostRole(
  sql: Sql,
  userName: string,
  service: string,
  operation: OperationName,
): Promise<string | undefined> {
  const user = await findUser(sql, userName);
  if (!user) return `User ${userName} no longer exists, so the job stopped.`;
  const role = await roleOn(sql, { userName: user.name, role: user.role }, service);
  if (ROLE_OPERATIONS[role].has(operation)) return undefined;
  return `${userName} no longer may call ${operation} on service ${service} (it needs the ${roleNeeded(operation)} role; their role there is ${role}), so the job stopped.`;
}
