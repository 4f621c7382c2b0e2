import type { GuessingLimit } from '../auth/guessing-limit.ts';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { FS_SESSION_HEADER } from '../../kit/wire.ts';
import { field, merged, minutes } from '../auth/session-params.ts';
import { anonymousSubject } from '../audit/audit-log.ts';
import { refuseSignInWithoutPost, signInName, signOutNamed } from '../auth/sign-in-routes.ts';
import { authenticateUser } from '../auth/users.ts';
import type { ServiceContext } from '../context.ts';
import { ApiError, codeForPart, FsCode } from '../errors.ts';
import type { ErrorRenderer } from '../errors-handler.ts';
import type { Part } from '../part.ts';
import { escapeXml } from '../render/render.ts';

export const FLOWAPI_PREFIX = '/api';
const XML_TYPE = 'text/xml; charset=UTF-8';

const MISSING = { status: 400, missing: FsCode.Missing };

const xml = (inner: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<result>${inner}</result>`;

const renderPartBError: ErrorRenderer = (error) => ({
  contentType: XML_TYPE,
  body: xml(
    `<status>error</status><code>${codeForPart(error, { Internal: FsCode.Internal, fallback: FsCode.Missing })}</code><message>${escapeXml(error.message)}</message>`,
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
export function flowService(
  ctx: ServiceContext,
  /** The one limit of sign-in tries per address and account (auth/guessing-limit.ts). */
  guessing: GuessingLimit,
): Part {
  return { prefixes: [FLOWAPI_PREFIX], renderError: renderPartBError, routes };
  async function routes(app: FastifyInstance): Promise<void> {
    const audited = ctx.audit.serverChange.bind(ctx.audit);

    // As Part A's (auth/sign-in-routes.ts): sign-in and sign-out take POST alone.
    refuseSignInWithoutPost(app, FLOWAPI_PREFIX);

    app.post(`${FLOWAPI_PREFIX}/auth/login`, (request, reply) => {
      const subject = anonymousSubject();
      return audited(request, 'fs.login', subject, async () => {
        const params = merged(request.query, request.body);
        // The name tried is audited even when it is refused (a control character in it).
        const userName = signInName(params, 'user', subject, MISSING);
        const password = field(params, 'password', MISSING, false);
        const lifetime = minutes(
          field(params, 'lifetime', MISSING, false),
          'lifetime',
          FsCode.Missing,
        );
        // Counted with Part A's tries once the fields are well formed, before the password
        // is looked at.
        await guessing.take(request.ip, userName);
        const user = await authenticateUser(ctx.shared, userName, password, {
          allowPasswordless: true,
        });
        if (!user) {
          await guessing.failed(userName);
          throw new ApiError(
            403,
            FsCode.LoginFailed,
            'Login failed: unknown user or wrong password.',
          );
        }
        subject.via = 'session';
        return send(reply, { sessionId: await ctx.sessions.open('fs', user.id, lifetime) });
      });
    });

    app.post(`${FLOWAPI_PREFIX}/auth/logout`, (request, reply) => {
      const subject = anonymousSubject();
      return audited(request, 'fs.logout', subject, async () => {
        const sessionId = await signOutNamed(ctx.sessions, 'fs', request, subject, {
          missing: MISSING,
          sessionNotFound: FsCode.SessionNotFound,
        });
        return send(reply, { sessionId });
      });
    });

    // Every other flow-service call needs a live X-Fs-SessionId. This service offers one,
    // the session itself (an extension), so clients can check theirs.
    app.get(`${FLOWAPI_PREFIX}/auth/session`, async (request, reply) => {
      const id = request.headers[FS_SESSION_HEADER.toLowerCase()];
      const session =
        typeof id === 'string' && id !== '' ? await ctx.sessions.use('fs', id) : undefined;
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
  }
}
