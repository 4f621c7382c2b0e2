import type { FastifyReply, FastifyRequest } from 'fastify';
import { MC_SESSION_HEADER, type Role } from '../../kit/wire.ts';
import type { Session } from '../auth/sessions.ts';
import type { ServiceContext } from '../context.ts';
import { ApiError, codeForPart, McCode } from '../errors.ts';
import type { ErrorRenderer } from '../errors-handler.ts';
import { noteCaller } from '../http/access-log.ts';
import { anonymousSubject } from '../audit/audit-log.ts';

// What every Part A route shares: its envelope, its refusals, and the session it needs.

export const MCAPI_PREFIX = '/mcapi';
const JSON_TYPE = 'application/json; charset=UTF-8';

/** A field left out is 400/2001. */
export const MISSING = { status: 400, missing: McCode.Missing };

/**
 * Writes a success envelope. Each route names its answer's type from the kit (`send<
 * ServicesAnswer>(…)`), so a change of shape fails the compiler here and in the kit's decoder.
 */
export function send<T extends object>(reply: FastifyReply, data: T): FastifyReply {
  return reply
    .header('content-type', JSON_TYPE)
    .send(JSON.stringify({ result: { status: 'success', data } }));
}

/** The error envelope of this Part. */
export const renderPartAError: ErrorRenderer = (error) => ({
  contentType: JSON_TYPE,
  body: JSON.stringify({
    result: {
      status: 'error',
      code: codeForPart(error, { Internal: McCode.Internal, fallback: McCode.WrongType }),
      message: error.message,
    },
  }),
});

/** The session named by X-As-SessionId; 401/3001 without a live one. */
export async function requireSession(
  ctx: ServiceContext,
  request: FastifyRequest,
): Promise<Session & { id: string }> {
  const id = request.headers[MC_SESSION_HEADER.toLowerCase()];
  if (typeof id !== 'string' || id === '')
    throw new ApiError(401, McCode.NoSession, `Sign in first and send ${MC_SESSION_HEADER}.`);
  const session = await ctx.sessions.use('mc', id);
  if (!session)
    throw new ApiError(401, McCode.NoSession, 'The session has expired or ended; sign in again.');
  noteCaller(request, { via: 'session', userName: session.userName });
  return { ...session, id };
}

export function requireRole(session: Session, role: Role): void {
  if (session.role !== role)
    throw new ApiError(403, McCode.Forbidden, `Only an ${role} may do this.`);
}

/** An administrator's change, audited under that administrator's name. */
export const adminChange =
  (
    ctx: ServiceContext,
    operation: string,
    run: (request: FastifyRequest, reply: FastifyReply) => FastifyReply | Promise<FastifyReply>,
  ) =>
  (request: FastifyRequest, reply: FastifyReply) => {
    const subject = anonymousSubject();
    return ctx.audit.serverChange(request, operation, subject, async () => {
      const session = await requireSession(ctx, request);
      Object.assign(subject, { userName: session.userName, via: 'session' });
      requireRole(session, 'administrator');
      return run(request, reply);
    });
  };
