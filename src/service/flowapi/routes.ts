import type { FastifyInstance, FastifyReply } from 'fastify';
import { FS_SESSION_HEADER } from '../../kit/wire.ts';
import { field, merged, minutes } from '../auth/session-params.ts';
import { decoyHash, findUser, verifyPassword } from '../auth/users.ts';
import type { ServiceContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import type { ErrorRenderer } from '../errors-handler.ts';
import { escapeXml } from '../render/render.ts';

export const FLOWAPI_PREFIX = '/api';
const XML_TYPE = 'text/xml; charset=UTF-8';

/** Part B codes (interfaces.md section 7), and the common ones this service adds. */
export const FsCode = {
  Missing: 2000,
  LoginFailed: 2001,
  SessionNotFound: 2002,
  NoSession: 2003,
  NotFound: 4004,
  MethodNotAllowed: 4005,
  TooLarge: 4013,
  TooManyRequests: 4029,
  Internal: 5000,
} as const;

const MISSING = { status: 400, missing: FsCode.Missing };

function partBCode(error: ApiError): number {
  if (error.code >= 2000 && error.code < 6000) return error.code;
  switch (error.code) {
    case 1501:
      return FsCode.TooLarge;
    case 1204:
      return FsCode.NotFound;
    case 1401:
      return FsCode.MethodNotAllowed;
    default:
      return FsCode.Missing;
  }
}

const xml = (inner: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<result>${inner}</result>`;

export const renderPartBError: ErrorRenderer = (error) => ({
  contentType: XML_TYPE,
  body: xml(
    `<status>error</status><code>${partBCode(error)}</code><message>${escapeXml(error.message)}</message>`,
  ),
});

function send(reply: FastifyReply, data: Record<string, string>): FastifyReply {
  const inner = Object.entries(data)
    .map(([k, v]) => `<${k}>${escapeXml(v)}</${k}>`)
    .join('');
  return reply
    .header('content-type', XML_TYPE)
    .send(xml(`<status>success</status><data>${inner}</data>`));
}

/** Part B: flow service login and logout, and the X-Fs-SessionId check. */
export function flowApiRoutes(
  ctx: ServiceContext,
  loginLimit: { max: number; timeWindow: number },
) {
  return async function routes(app: FastifyInstance): Promise<void> {
    const limited = {
      config: { rateLimit: { max: loginLimit.max, timeWindow: loginLimit.timeWindow } },
    };

    app.post(`${FLOWAPI_PREFIX}/auth/login`, limited, async (request, reply) => {
      const params = merged(request.query, request.body);
      const userName = field(params, 'user', MISSING, true);
      const password = field(params, 'password', MISSING, false);
      const lifetime = minutes(
        field(params, 'lifetime', MISSING, false),
        'lifetime',
        FsCode.Missing,
      );
      const user = findUser(ctx.dbs.system, userName);
      // Every path costs one scrypt, so the time of an answer tells nothing about the user
      // (a user without a password would otherwise answer at once).
      let valid = false;
      if (user && user.passwordHash !== '' && password !== undefined)
        valid = await verifyPassword(password, user.passwordHash);
      else {
        await verifyPassword(password ?? '', await decoyHash());
        valid = user !== undefined && user.passwordHash === '' && password === undefined;
      }
      if (!user || !valid)
        throw new ApiError(
          403,
          FsCode.LoginFailed,
          'Login failed: unknown user or wrong password.',
        );
      return send(reply, { sessionId: ctx.sessions.open('fs', user.name, lifetime) });
    });

    app.post(`${FLOWAPI_PREFIX}/auth/logout`, async (request, reply) => {
      const sessionId = field(merged(request.query, request.body), 'sessionId', MISSING, true);
      if (!ctx.sessions.close('fs', sessionId))
        throw new ApiError(404, FsCode.SessionNotFound, 'No such session.');
      return send(reply, { sessionId });
    });

    // Every other flow-service call needs a live X-Fs-SessionId. This service offers one,
    // the session itself (an extension), so clients can check theirs.
    app.get(`${FLOWAPI_PREFIX}/auth/session`, async (request, reply) => {
      const id = request.headers[FS_SESSION_HEADER.toLowerCase()];
      const session = typeof id === 'string' && id !== '' ? ctx.sessions.use('fs', id) : undefined;
      if (!session)
        throw new ApiError(
          401,
          FsCode.NoSession,
          `Sign in first and send a live ${FS_SESSION_HEADER}.`,
        );
      return send(reply, {
        user: session.userName,
        role: session.role,
        expires: new Date(session.expires).toISOString(),
      });
    });
  };
}
