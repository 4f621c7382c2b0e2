import type { FastifyRequest } from 'fastify';
import { ErrorCode, MC_SESSION_HEADER, type OperationName, type Role } from '../../kit/wire.ts';
import { ApiError } from '../errors.ts';
import { mayCall } from './permissions.ts';
import type { SessionStore } from './sessions.ts';

/** Who made a Part C call, once authenticated; roles come with management console sessions. */
export interface Caller {
  readonly via: 'key' | 'cookie' | 'session';
  readonly role?: Role;
  readonly userName?: string;
}

/**
 * Credentials beyond the key and cookie: undefined when the request carries none of them.
 * `identified` hears who is calling before the role is checked, so a refusal names them.
 */
export type ExtraAuthenticator = (
  request: FastifyRequest,
  operation: OperationName,
  identified?: (caller: Caller) => void,
) => Caller | undefined;

/**
 * A signed-in person on the pipeline API (contract section 4, `X-As-SessionId`): that
 * session's role alone decides what the call may do.
 */
export function managementConsoleSessions(sessions: SessionStore): ExtraAuthenticator {
  return (request, operation, identified) => {
    const id = request.headers[MC_SESSION_HEADER.toLowerCase()];
    if (typeof id !== 'string' || id === '') return undefined;
    const session = sessions.use('mc', id);
    if (!session)
      throw new ApiError(
        401,
        ErrorCode.BadCredentials,
        'The management console session has expired or ended; sign in again.',
      );
    const caller: Caller = { via: 'session', role: session.role, userName: session.userName };
    identified?.(caller);
    if (!mayCall(session.role, operation)) {
      throw new ApiError(
        403,
        ErrorCode.RoleForbidden,
        `The ${session.role} role may not call ${operation}.`,
      );
    }
    return caller;
  };
}
