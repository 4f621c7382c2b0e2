import type { FastifyRequest } from 'fastify';
import { ErrorCode, MC_SESSION_HEADER, type OperationName, type Role } from '../../kit/wire.ts';
import type { Sql } from '../db/sql.ts';
import { ApiError } from '../errors.ts';
import { requireServiceRole } from './service-roles.ts';
import { sessionCredential, type SessionStore } from './sessions.ts';

/** Who made a Part C call, once authenticated; roles come with management console sessions. */
export interface Caller {
  readonly via: 'key' | 'cookie' | 'session' | `token ${string}`;
  /** The person's role on the service called (contract section 12). */
  readonly role?: Role;
  readonly userName?: string;
  /**
   * The credential itself, as work done later on the caller's behalf (a bulk job) keeps it to
   * check that it has not ended (auth/credential-end.ts): a session's or token's stored hash,
   * the key's digest; never a secret.
   */
  readonly credential?: string;
}

/**
 * Credentials beyond the key and cookie: undefined when the request carries none of them.
 * `service` is the id of the service called; `identified` hears who is calling before the
 * role is checked, so a refusal names them.
 */
export type ExtraAuthenticator = (
  request: FastifyRequest,
  operation: OperationName,
  service: string,
  identified?: (caller: Caller) => void,
) => Promise<Caller | undefined>;

/** Node gives header names in lower case; lowered once, not on every call. */
const SESSION_HEADER = MC_SESSION_HEADER.toLowerCase();

/**
 * A signed-in person on the pipeline API (contract sections 4 and 12, `X-As-SessionId`):
 * that session's person's role on the service called alone decides what the call may do,
 * read at each call.
 */
export function managementConsoleSessions(sessions: SessionStore, sql: Sql): ExtraAuthenticator {
  return async (request, operation, service, identified) => {
    const id = request.headers[SESSION_HEADER];
    if (typeof id !== 'string' || id === '') return undefined;
    const session = await sessions.use('mc', id);
    if (!session)
      throw new ApiError(
        401,
        ErrorCode.BadCredentials,
        'The management console session has expired or ended; sign in again.',
      );
    identified?.({ via: 'session', role: session.role, userName: session.userName });
    const role = await requireServiceRole(sql, session, service, operation);
    return { via: 'session', role, userName: session.userName, credential: sessionCredential(id) };
  };
}
