import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MC_SESSION_HEADER, roleAtLeast, SESSION_COOKIE, type Role } from '../../kit/wire.ts';
import { anonymousSubject, type AuditSubject } from '../audit/audit-log.ts';
import { auditCsv } from '../audit/csv-export.ts';
import { queryAudit } from '../db/system/audit.ts';
import { listNotifications } from '../db/system/notifications.ts';
import { shownTarget } from '../notify/notifier.ts';
import { authenticateUser } from '../auth/users.ts';
import { field, merged, minutes } from '../auth/session-params.ts';
import type { Session } from '../auth/sessions.ts';
import type { ServiceContext } from '../context.ts';
import { ApiError, codeForPart, McCode } from '../errors.ts';
import { noteCaller } from '../http/access-log.ts';
import { externalBase } from '../http/base-path.ts';
import type { ErrorRenderer } from '../errors-handler.ts';
import type { Part } from '../part.ts';
import type { ProviderSignOut } from '../auth/oidc-sign-out.ts';
import { roleOn } from '../auth/service-roles.ts';
import { requestHistoryRoutes } from './request-history.ts';
import { fleetRoutes } from './fleet.ts';
import { isRole } from '../auth/users.ts';
import {
  createToken,
  listTokens,
  MAX_TOKEN_DAYS,
  revokeOwnToken,
  TOKEN_NAME,
} from '../auth/tokens.ts';

export const MCAPI_PREFIX = '/mcapi';
const JSON_TYPE = 'application/json; charset=UTF-8';

const MISSING = { status: 400, missing: McCode.Missing };

/** Largest sum of entries in one answer of /mcapi/audit (each entry is at most 4 KB). */
export const AUDIT_ANSWER_BYTES = 1024 * 1024;

/** Methods other than POST, which sign-in and sign-out refuse (405) rather than not know (404). */
const NOT_POST = ['GET', 'PUT', 'DELETE', 'PATCH'];

const renderPartAError: ErrorRenderer = (error) => ({
  contentType: JSON_TYPE,
  body: JSON.stringify({
    result: {
      status: 'error',
      code: codeForPart(error, { Internal: McCode.Internal, fallback: McCode.WrongType }),
      message: error.message,
    },
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
  noteCaller(request, { via: 'session', userName: session.userName });
  return { ...session, id };
}

function requireRole(session: Session, role: Role): void {
  if (session.role !== role)
    throw new ApiError(403, McCode.Forbidden, `Only an ${role} may do this.`);
}

function settings(ctx: ServiceContext): {
  apiEnabled: boolean;
  apiKey: string | null;
  sharedKeyEnabled: boolean;
} {
  return {
    apiEnabled: ctx.access.enabled,
    apiKey: ctx.access.key,
    sharedKeyEnabled: ctx.access.sharedKeyEnabled,
  };
}

/** Part A: management console login and logout, the session, and the pipeline API settings. */
export function managementConsole(
  ctx: ServiceContext,
  loginLimit: { max: number; timeWindow: number },
  /** Ends a session at the OpenID provider it came from (single sign-on), if configured. */
  providerSignOut?: ProviderSignOut,
): Part {
  return { prefixes: [MCAPI_PREFIX], renderError: renderPartAError, routes };
  async function routes(app: FastifyInstance): Promise<void> {
    const limited = {
      config: { rateLimit: { max: loginLimit.max, timeWindow: loginLimit.timeWindow } },
    };

    /** Runs a state-changing call of this Part and records it in the audit log. */
    const audited = ctx.audit.serverChange.bind(ctx.audit);

    // Sign-in and sign-out take POST alone: a password or session id in a URL ends up in
    // browser histories and proxies' logs. Another method is 405, before any field is read.
    for (const [path, message] of [
      ['login', 'Sign in with POST and a form body: a password never goes in a URL.'],
      ['logout', 'Sign out with POST and a form body: a session id never goes in a URL.'],
    ] as const)
      app.route({
        method: NOT_POST,
        url: `${MCAPI_PREFIX}/auth/${path}`,
        handler: () => {
          throw new ApiError(405, McCode.MethodNotAllowed, message, { allow: 'POST' });
        },
      });

    app.post(`${MCAPI_PREFIX}/auth/login`, limited, (request, reply) => {
      const subject = anonymousSubject();
      return audited(request, 'mc.login', subject, () => login(request, reply, subject));
    });

    const login = async (request: FastifyRequest, reply: FastifyReply, subject: AuditSubject) => {
      const params = merged(request.query, request.body);
      const userName = field(params, 'userName', MISSING, true);
      // The name tried, whether or not it signs in: failed attempts matter most to an audit.
      subject.userName = userName;
      const password = field(params, 'password', MISSING, true);
      const timeout = minutes(
        field(params, 'timeout', MISSING, false),
        'timeout',
        McCode.WrongType,
      );
      const getRole = field(params, 'getRole', MISSING, false) ?? 'false';
      if (getRole !== 'true' && getRole !== 'false')
        throw new ApiError(400, McCode.WrongType, 'Parameter getRole must be true or false.');
      const user = await authenticateUser(ctx.dbs.system, userName, password, {
        allowPasswordless: false,
      });
      if (!user)
        throw new ApiError(
          403,
          McCode.LoginFailed,
          'Login failed: unknown user or wrong password.',
        );
      const sessionId = ctx.sessions.open('mc', user.id, timeout);
      subject.via = 'session';
      return send(reply, {
        sessionId,
        serverName: ctx.serverName,
        serverId: ctx.serverId,
        ...(getRole === 'true' ? { role: [user.role] } : {}),
      });
    };

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
    app.post(`${MCAPI_PREFIX}/auth/logout`, clearsCookie, (request, reply) => {
      const subject = anonymousSubject();
      return audited(request, 'mc.logout', subject, async () => {
        const sessionId = field(merged(request.query, request.body), 'sessionId', MISSING, true);
        const signedOut = ctx.sessions.signOut('mc', sessionId, (userName) =>
          Object.assign(subject, { userName, via: 'session' }),
        );
        if (!signedOut) throw new ApiError(404, McCode.SessionNotFound, 'No such session.');
        // A session from the provider: the browser goes on to end it there too.
        const endSessionUrl = providerSignOut?.endSessionUrl(sessionId, externalBase(request));
        return send(reply, { sessionId, ...(endSessionUrl ? { endSessionUrl } : {}) });
      });
    });

    // Extension: who is signed in, for a dashboard that reloads with a stored session id,
    // with their role on each service this server answers for (contract section 12), in the
    // services' order: the first is the one plain /pipelineapi reaches.
    app.get(`${MCAPI_PREFIX}/auth/session`, async (request, reply) => {
      const session = requireSession(ctx, request);
      return send(reply, {
        userName: session.userName,
        role: [session.role],
        serviceRoles: ctx.services.routes.map((route) => ({
          service: route.id,
          role: roleOn(ctx.dbs.system, session, route.id),
        })),
        serverName: ctx.serverName,
        serverId: ctx.serverId,
        expires: new Date(session.expires).toISOString(),
      });
    });

    app.get(`${MCAPI_PREFIX}/pipeline/settings`, async (request, reply) => {
      requireRole(requireSession(ctx, request), 'administrator');
      return send(reply, settings(ctx));
    });

    // The services this server answers for, with the last check of each (contract section 7).
    // Each with the caller's role there (contract section 12).
    app.get(`${MCAPI_PREFIX}/services`, async (request, reply) => {
      const session = requireSession(ctx, request);
      return send(reply, {
        services: ctx.services
          .list()
          .map((service) => ({ ...service, role: roleOn(ctx.dbs.system, session, service.id) })),
      });
    });

    // Every service's today at once, and a pipeline's last days (issue 25; fleet.ts).
    fleetRoutes(app, ctx, requireSession, MCAPI_PREFIX);

    // A request's attempts, and requests over a range of days (issue 25; request-history.ts).
    requestHistoryRoutes(app, ctx, (request) => requireSession(ctx, request), MCAPI_PREFIX);

    /** The audit log's filters of a call, each checked (400/2003 naming it). */
    const auditParams = (request: FastifyRequest) => {
      const params = merged(request.query, request.body);
      const text = (name: string) => field(params, name, MISSING, false);
      const day = (name: string) => {
        const value = text(name);
        if (value !== undefined && !/^\d{8}$/.test(value))
          throw new ApiError(400, McCode.WrongType, `Parameter ${name} must be a day as yyyymmdd.`);
        return value;
      };
      const whole = (name: string, fallback: number, min: number, max: number) => {
        const value = text(name);
        if (value === undefined) return fallback;
        if (!/^\d{1,10}$/.test(value) || Number(value) < min || Number(value) > max)
          throw new ApiError(
            400,
            McCode.WrongType,
            `Parameter ${name} must be a whole number from ${min} to ${max}.`,
          );
        return Number(value);
      };
      return {
        filters: {
          from: day('from'),
          to: day('to'),
          user: text('user'),
          service: text('service'),
          operation: text('operation'),
          requestId: text('requestid'),
        },
        index: () => whole('index', 0, 0, 1_000_000_000),
        pageSize: () => whole('pagesize', 100, 1, 1000),
      };
    };

    // The audit log, newest first (contract section 7; administrators only). An answer
    // holds at most AUDIT_ANSWER_BYTES of entries whatever the page size: a page that would
    // pass it ends early, and `next` says where the rest begins (-1: nothing follows).
    app.get(`${MCAPI_PREFIX}/audit`, async (request, reply) => {
      requireRole(requireSession(ctx, request), 'administrator');
      const asked = auditParams(request);
      const index = asked.index();
      const pageSize = asked.pageSize();
      const page = queryAudit(ctx.dbs.system, {
        ...asked.filters,
        index,
        pageSize,
        maxBytes: AUDIT_ANSWER_BYTES,
      });
      return send(reply, {
        total: page.total,
        index,
        pageSize,
        next: page.next,
        entries: page.entries,
      });
    });

    // The whole filtered range as CSV, newest first, written as it is read (administrators).
    app.get(`${MCAPI_PREFIX}/audit/export`, async (request, reply) => {
      requireRole(requireSession(ctx, request), 'administrator');
      const { filters } = auditParams(request);
      const name = ['audit', filters.from, filters.to].filter(Boolean).join('-');
      return reply
        .header('content-type', 'text/csv; charset=UTF-8')
        .header('content-disposition', `attachment; filename="${name}.csv"`)
        .send(auditCsv(ctx.dbs.system, filters));
    });

    /** An administrator's change, audited under that administrator's name. */
    const adminChange =
      (
        operation: string,
        run: (request: FastifyRequest, reply: FastifyReply) => FastifyReply | Promise<FastifyReply>,
      ) =>
      (request: FastifyRequest, reply: FastifyReply) => {
        const subject = anonymousSubject();
        return audited(request, operation, subject, async () => {
          const session = requireSession(ctx, request);
          Object.assign(subject, { userName: session.userName, via: 'session' });
          requireRole(session, 'administrator');
          return run(request, reply);
        });
      };

    // Notifications sent and their outcome, newest first (administrators).
    app.get(`${MCAPI_PREFIX}/notifications`, async (request, reply) => {
      requireRole(requireSession(ctx, request), 'administrator');
      return send(reply, {
        targets: ctx.notifier.targets.map(shownTarget),
        notifications: listNotifications(ctx.dbs.system, 200),
      });
    });

    // The Settings page's test button: a message to every receiver, and how each went.
    app.post(
      `${MCAPI_PREFIX}/notifications/test`,
      adminChange('mc.notify-test', async (request, reply) => {
        const session = requireSession(ctx, request);
        return send(reply, { results: await ctx.notifier.test(session.userName) });
      }),
    );

    app.put(
      `${MCAPI_PREFIX}/pipeline/settings`,
      adminChange('mc.settings', (request, reply) => {
        const params = merged(request.query, request.body);
        const flag = (name: string, required: boolean) => {
          const value = required
            ? field(params, name, MISSING, true)
            : field(params, name, MISSING, false);
          if (value !== undefined && value !== 'true' && value !== 'false')
            throw new ApiError(400, McCode.WrongType, `Parameter ${name} must be true or false.`);
          return value === undefined ? undefined : value === 'true';
        };
        // sharedKeyEnabled: personal tokens alone once people use them (contract section 12).
        // Either may be sent alone; with neither, apiEnabled is the one missing.
        const shared = flag('sharedKeyEnabled', false);
        const enabled = flag('apiEnabled', shared === undefined);
        if (enabled !== undefined) ctx.access.setEnabled(enabled);
        if (shared !== undefined) ctx.access.setSharedKeyEnabled(shared);
        return send(reply, settings(ctx));
      }),
    );

    // Personal API tokens (contract section 12): each person's own, for scripts that act as
    // them. The value is in the answer of its creation alone.
    app.get(`${MCAPI_PREFIX}/tokens`, async (request, reply) => {
      const session = requireSession(ctx, request);
      return send(reply, { tokens: listTokens(ctx.dbs.system, session.userId) });
    });

    app.post(`${MCAPI_PREFIX}/tokens`, (request, reply) => {
      const subject = anonymousSubject();
      return audited(request, 'mc.token-create', subject, async () => {
        const session = requireSession(ctx, request);
        Object.assign(subject, { userName: session.userName, via: 'session' });
        const params = merged(request.query, request.body);
        const name = field(params, 'name', MISSING, true).trim();
        if (!TOKEN_NAME.test(name))
          throw new ApiError(
            400,
            McCode.WrongType,
            'Parameter name must be 1 to 64 characters without control characters.',
          );
        const daysText = field(params, 'expiresInDays', MISSING, true);
        const days = /^\d{1,3}$/.test(daysText) ? Number(daysText) : NaN;
        if (!(days >= 1 && days <= MAX_TOKEN_DAYS))
          throw new ApiError(
            400,
            McCode.WrongType,
            `Parameter expiresInDays must be a whole number from 1 to ${MAX_TOKEN_DAYS}.`,
          );
        const service = field(params, 'service', MISSING, false) || null;
        if (service !== null && !ctx.services.routes.some((route) => route.id === service))
          throw new ApiError(
            400,
            McCode.WrongType,
            `Parameter service names no service here: ${JSON.stringify(service)}.`,
          );
        // Theirs: on the token's service when it names one, else their default role.
        const own = service === null ? session.role : roleOn(ctx.dbs.system, session, service);
        const roleText = field(params, 'role', MISSING, false) || own;
        if (!isRole(roleText))
          throw new ApiError(
            400,
            McCode.WrongType,
            'Parameter role must be viewer, operator, developer or administrator.',
          );
        if (!roleAtLeast(own, roleText))
          throw new ApiError(
            403,
            McCode.Forbidden,
            `Parameter role ${roleText} is above your own role (${own}${service === null ? '' : ` on service ${service}`}).`,
          );
        const token = createToken(ctx.dbs.system, ctx.clock, session, {
          name,
          days,
          role: roleText,
          service,
        });
        return send(reply, token);
      });
    });

    app.delete(`${MCAPI_PREFIX}/tokens/:id`, (request, reply) => {
      const subject = anonymousSubject();
      const id = (request.params as { id: string }).id;
      // The entry names the token revoked: its id is in the path, not the fields.
      const what = { operation: 'mc.token-revoke', service: null, parameters: { id } };
      return ctx.audit.around(request, what, subject, async () => {
        const session = requireSession(ctx, request);
        Object.assign(subject, { userName: session.userName, via: 'session' });
        if (
          !/^\d{1,15}$/.test(id) ||
          !revokeOwnToken(ctx.dbs.system, ctx.clock, session.userId, Number(id))
        )
          throw new ApiError(
            404,
            McCode.NotFound,
            `You have no token ${JSON.stringify(id)} to revoke.`,
          );
        return send(reply, { id: Number(id), revoked: true });
      });
    });

    app.post(
      `${MCAPI_PREFIX}/pipeline/apikey`,
      adminChange('mc.apikey', (_request, reply) => send(reply, { apiKey: ctx.access.reissue() })),
    );
  }
}
