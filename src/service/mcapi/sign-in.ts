import type { GuessingLimit } from '../auth/guessing-limit.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LoginAnswer, LogoutAnswer, SessionAnswer } from '../../kit/management-console.ts';
import { SESSION_COOKIE } from '../../kit/wire.ts';
import { anonymousSubject, type AuditSubject } from '../audit/audit-log.ts';
import type { ProviderSignOut } from '../auth/oidc-sign-out.ts';
import { field, merged, minutes } from '../auth/session-params.ts';
import { roleOn } from '../auth/service-roles.ts';
import { sessionCookieOptions } from '../auth/session-cookie.ts';
import { refuseSignInWithoutPost, signInName, signOutNamed } from '../auth/sign-in-routes.ts';
import { authenticateUser } from '../auth/users.ts';
import type { ServiceContext } from '../context.ts';
import { ApiError, McCode } from '../errors.ts';
import { externalBase } from '../http/base-path.ts';
import { MCAPI_PREFIX, MISSING, requireSession, send } from './respond.ts';

/** Sign-in, sign-out and the session of the management console (Part A). */
export function signInRoutes(
  app: FastifyInstance,
  ctx: ServiceContext,
  guessing: GuessingLimit,
  /** Ends a session at the OpenID provider it came from (single sign-on), if configured. */
  providerSignOut: ProviderSignOut | undefined,
): void {
  /** Runs a state-changing call of this Part and records it in the audit log. */
  const audited = ctx.audit.serverChange.bind(ctx.audit);

  refuseSignInWithoutPost(app, MCAPI_PREFIX);

  app.post(`${MCAPI_PREFIX}/auth/login`, (request, reply) => {
    const subject = anonymousSubject();
    return audited(request, 'mc.login', subject, () => login(request, reply, subject));
  });

  const login = async (request: FastifyRequest, reply: FastifyReply, subject: AuditSubject) => {
    const params = merged(request.query, request.body);
    // The name tried, whether or not it signs in, even when it is refused.
    const userName = signInName(params, 'userName', subject, MISSING);
    const password = field(params, 'password', MISSING, true);
    const timeout = minutes(field(params, 'timeout', MISSING, false), 'timeout', McCode.WrongType);
    const getRole = field(params, 'getRole', MISSING, false) ?? 'false';
    if (getRole !== 'true' && getRole !== 'false')
      throw new ApiError(400, McCode.WrongType, 'Parameter getRole must be true or false.');
    // Counted once the fields are well formed (bad input changes nothing), before the
    // password is looked at: a refused try is a try.
    await guessing.take(request.ip, userName);
    const user = await authenticateUser(ctx.shared, userName, password, {
      allowPasswordless: false,
    });
    if (!user) {
      await guessing.failed(userName);
      throw new ApiError(403, McCode.LoginFailed, 'Login failed: unknown user or wrong password.');
    }
    const sessionId = await ctx.sessions.open('mc', user.id, timeout);
    subject.via = 'session';
    return send<LoginAnswer>(reply, {
      sessionId,
      serverName: ctx.serverName,
      serverId: ctx.serverId,
      ...(getRole === 'true' ? { role: [user.role] } : {}),
    });
  };

  // Signing out also ends any SESSIONID the browser holds (contract section 4, revised),
  // on every answer, an error included: the dashboard signs out whatever it signed in with.
  const clearsCookie = {
    onRequest: async (request: FastifyRequest) => {
      const cookie = request.cookies[SESSION_COOKIE];
      if (cookie !== undefined) await ctx.access.endCookieSession(cookie);
    },
    onSend: (
      request: FastifyRequest,
      reply: FastifyReply,
      payload: unknown,
      done: (error: null, payload: unknown) => void,
    ) => {
      void reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(request));
      done(null, payload);
    },
  };
  app.post(`${MCAPI_PREFIX}/auth/logout`, clearsCookie, (request, reply) => {
    const subject = anonymousSubject();
    return audited(request, 'mc.logout', subject, async () => {
      const sessionId = await signOutNamed(ctx.sessions, 'mc', request, subject, {
        missing: MISSING,
        sessionNotFound: McCode.SessionNotFound,
      });
      // A session from the provider: the browser goes on to end it there too.
      const endSessionUrl = providerSignOut?.endSessionUrl(sessionId, externalBase(request));
      return send<LogoutAnswer>(reply, { sessionId, ...(endSessionUrl ? { endSessionUrl } : {}) });
    });
  });

  // Extension: who is signed in, for a dashboard that reloads with a stored session id,
  // with their role on each service this server answers for (contract section 12), in the
  // services' order: the first is the one plain /pipelineapi reaches.
  app.get(`${MCAPI_PREFIX}/auth/session`, async (request, reply) => {
    const session = await requireSession(ctx, request);
    return send<SessionAnswer>(reply, {
      userName: session.userName,
      role: [session.role],
      serviceRoles: await Promise.all(
        ctx.services.routes.map(async (route) => ({
          service: route.id,
          role: await roleOn(ctx.shared, session, route.id),
        })),
      ),
      serverName: ctx.serverName,
      serverId: ctx.serverId,
      expires: new Date(session.expires).toISOString(),
    });
  });
}
