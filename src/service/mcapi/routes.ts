import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MC_SESSION_HEADER, SESSION_COOKIE, type Role } from '../../kit/wire.ts';
import { decoyHash, findUser, verifyPassword } from '../auth/users.ts';
import { field, merged, minutes } from '../auth/session-params.ts';
import type { Session } from '../auth/sessions.ts';
import type { ServiceContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import type { ErrorRenderer } from '../errors-handler.ts';

export const MCAPI_PREFIX = '/mcapi';
const JSON_TYPE = 'application/json; charset=UTF-8';

/** Part A codes (interfaces.md section 7), and the common ones this service adds. */
export const McCode = {
  Missing: 2002,
  WrongType: 2003,
  NoSession: 3001,
  LoginFailed: 3002,
  Forbidden: 3003,
  SessionNotFound: 4003,
  NotFound: 4004,
  MethodNotAllowed: 4005,
  TooLarge: 4013,
  TooManyRequests: 4029,
  Internal: 5102,
} as const;

const MISSING = { status: 400, missing: McCode.Missing };

/** Part C codes thrown by shared code (body limits, parsers) in Part A's terms. */
function partACode(error: ApiError): number {
  if (error.code >= 2000 && error.code < 6000 && error.code !== 5000) return error.code;
  switch (error.code) {
    case 1501:
      return McCode.TooLarge;
    case 1204:
      return McCode.NotFound;
    case 1401:
      return McCode.MethodNotAllowed;
    case 5000:
      return McCode.Internal;
    default:
      return McCode.WrongType;
  }
}

export const renderPartAError: ErrorRenderer = (error) => ({
  contentType: JSON_TYPE,
  body: JSON.stringify({
    result: { status: 'error', code: partACode(error), message: error.message },
  }),
});

function send(reply: FastifyReply, data: object): FastifyReply {
  return reply
    .header('content-type', JSON_TYPE)
    .send(JSON.stringify({ result: { status: 'success', data } }));
}

/** The session named by X-As-SessionId; 401/3001 without a live one. */
export function requireSession(
  ctx: ServiceContext,
  request: FastifyRequest,
): Session & { id: string } {
  const id = request.headers[MC_SESSION_HEADER.toLowerCase()];
  if (typeof id !== 'string' || id === '')
    throw new ApiError(401, McCode.NoSession, `Sign in first and send ${MC_SESSION_HEADER}.`);
  const session = ctx.sessions.use('mc', id);
  if (!session)
    throw new ApiError(401, McCode.NoSession, 'The session has expired or ended; sign in again.');
  return { ...session, id };
}

function requireRole(session: Session, role: Role): void {
  if (session.role !== role)
    throw new ApiError(403, McCode.Forbidden, `Only an ${role} may do this.`);
}

function settings(ctx: ServiceContext): { apiEnabled: boolean; apiKey: string | null } {
  return { apiEnabled: ctx.access.enabled, apiKey: ctx.access.key };
}

/** Part A: management console login and logout, the session, and the pipeline API settings. */
export function mcapiRoutes(ctx: ServiceContext, loginLimit: { max: number; timeWindow: number }) {
  return async function routes(app: FastifyInstance): Promise<void> {
    const limited = {
      config: { rateLimit: { max: loginLimit.max, timeWindow: loginLimit.timeWindow } },
    };

    app.post(`${MCAPI_PREFIX}/auth/login`, limited, async (request, reply) => {
      const params = merged(request.query, request.body);
      const userName = field(params, 'userName', MISSING, true);
      const password = field(params, 'password', MISSING, true);
      const timeout = minutes(
        field(params, 'timeout', MISSING, false),
        'timeout',
        McCode.WrongType,
      );
      const getRole = field(params, 'getRole', MISSING, false) ?? 'false';
      if (getRole !== 'true' && getRole !== 'false')
        throw new ApiError(400, McCode.WrongType, 'Parameter getRole must be true or false.');
      const user = findUser(ctx.dbs.system, userName);
      // The same work and the same answer whether the user is unknown or the password wrong.
      const valid =
        user && user.passwordHash !== ''
          ? await verifyPassword(password, user.passwordHash)
          : (await verifyPassword(password, await decoyHash()), false);
      if (!user || !valid)
        throw new ApiError(
          403,
          McCode.LoginFailed,
          'Login failed: unknown user or wrong password.',
        );
      const sessionId = ctx.sessions.open('mc', user.name, timeout);
      return send(reply, {
        sessionId,
        serverName: ctx.serverName,
        serverId: ctx.serverId,
        ...(getRole === 'true' ? { role: [user.role] } : {}),
      });
    });

    // Signing out also ends any SESSIONID the browser holds (contract section 4, revised),
    // on every answer, an error included: the dashboard signs out whatever it signed in with.
    const clearsCookie = {
      onRequest: (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
        const cookie = request.cookies[SESSION_COOKIE];
        if (cookie !== undefined) ctx.access.endCookieSession(cookie);
        done();
      },
      onSend: (
        _request: FastifyRequest,
        reply: FastifyReply,
        payload: unknown,
        done: (error: null, payload: unknown) => void,
      ) => {
        void reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'strict' });
        done(null, payload);
      },
    };
    app.post(`${MCAPI_PREFIX}/auth/logout`, clearsCookie, async (request, reply) => {
      const sessionId = field(merged(request.query, request.body), 'sessionId', MISSING, true);
      if (!ctx.sessions.close('mc', sessionId))
        throw new ApiError(404, McCode.SessionNotFound, 'No such session.');
      return send(reply, { sessionId });
    });

    // Extension: who is signed in, for a dashboard that reloads with a stored session id.
    app.get(`${MCAPI_PREFIX}/auth/session`, async (request, reply) => {
      const session = requireSession(ctx, request);
      return send(reply, {
        userName: session.userName,
        role: [session.role],
        serverName: ctx.serverName,
        serverId: ctx.serverId,
        expires: new Date(session.expires).toISOString(),
      });
    });

    app.get(`${MCAPI_PREFIX}/pipeline/settings`, async (request, reply) => {
      requireRole(requireSession(ctx, request), 'administrator');
      return send(reply, settings(ctx));
    });

    app.put(`${MCAPI_PREFIX}/pipeline/settings`, async (request, reply) => {
      requireRole(requireSession(ctx, request), 'administrator');
      const value = field(merged(request.query, request.body), 'apiEnabled', MISSING, true);
      if (value !== 'true' && value !== 'false')
        throw new ApiError(400, McCode.WrongType, 'Parameter apiEnabled must be true or false.');
      ctx.access.setEnabled(value === 'true');
      return send(reply, settings(ctx));
    });

    app.post(`${MCAPI_PREFIX}/pipeline/apikey`, async (request, reply) => {
      requireRole(requireSession(ctx, request), 'administrator');
      return send(reply, { apiKey: ctx.access.reissue() });
    });
  };
}
