import type { GuessingLimit } from '../auth/guessing-limit.ts';
import type { FastifyInstance } from 'fastify';
import type { ApiKeyAnswer, ApiSettings } from '../../kit/management-console.ts';
import type { ServicesAnswer } from '../../kit/services.ts';
import type { ProviderSignOut } from '../auth/oidc-sign-out.ts';
import { field, merged } from '../auth/session-params.ts';
import { roleOn } from '../auth/service-roles.ts';
import type { ServiceContext } from '../context.ts';
import { ApiError, McCode } from '../errors.ts';
import type { Part } from '../part.ts';
import { auditRoutes } from './audit.ts';
import { fleetRoutes } from './fleet-routes.ts';
import { notificationRoutes } from './notifications.ts';
import { requestHistoryRoutes } from './request-history.ts';
import {
  adminChange,
  MCAPI_PREFIX,
  MISSING,
  renderPartAError,
  requireRole,
  requireSession,
  send,
} from './respond.ts';
import { signInRoutes } from './sign-in.ts';
import { tokenRoutes } from './tokens.ts';

export { MCAPI_PREFIX, requireSession } from './respond.ts';
export { AUDIT_ANSWER_BYTES } from './audit.ts';

function settings(ctx: ServiceContext): ApiSettings {
  return {
    apiEnabled: ctx.access.enabled,
    apiKey: ctx.access.key,
    sharedKeyEnabled: ctx.access.sharedKeyEnabled,
  };
}

/**
 * Part A: management console sign-in and sign-out, the session, the pipeline API settings,
 * and the server's extensions (services, fleet and trends, request history, audit,
 * notifications, personal tokens), each family in its own module.
 */
export function managementConsole(
  ctx: ServiceContext,
  /** The one limit of sign-in tries per address and account (auth/guessing-limit.ts). */
  guessing: GuessingLimit,
  /** Ends a session at the OpenID provider it came from (single sign-on), if configured. */
  providerSignOut?: ProviderSignOut,
): Part {
  return { prefixes: [MCAPI_PREFIX], renderError: renderPartAError, routes };
  async function routes(app: FastifyInstance): Promise<void> {
    signInRoutes(app, ctx, guessing, providerSignOut);

    app.get(`${MCAPI_PREFIX}/pipeline/settings`, async (request, reply) => {
      requireRole(await requireSession(ctx, request), 'administrator');
      return send<ApiSettings>(reply, settings(ctx));
    });

    // The services this server answers for, with the last check of each (contract section 7).
    // Each with the caller's role there (contract section 12).
    app.get(`${MCAPI_PREFIX}/services`, async (request, reply) => {
      const session = await requireSession(ctx, request);
      return send<ServicesAnswer>(reply, {
        services: await Promise.all(
          ctx.services.list().map(async (service) => ({
            ...service,
            role: await roleOn(ctx.shared, session, service.id),
          })),
        ),
      });
    });

    // Every service's today at once, and a pipeline's last days (issue 25; fleet-routes.ts).
    fleetRoutes(app, ctx, requireSession, MCAPI_PREFIX);

    // A request's attempts, and requests over a range of days (issue 25; request-history.ts).
    requestHistoryRoutes(app, ctx, (request) => requireSession(ctx, request), MCAPI_PREFIX);

    auditRoutes(app, ctx);
    notificationRoutes(app, ctx);

    app.put(
      `${MCAPI_PREFIX}/pipeline/settings`,
      adminChange(ctx, 'mc.settings', async (request, reply) => {
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
        if (enabled !== undefined) await ctx.access.setEnabled(enabled);
        if (shared !== undefined) await ctx.access.setSharedKeyEnabled(shared);
        return send<ApiSettings>(reply, settings(ctx));
      }),
    );

    tokenRoutes(app, ctx);

    app.post(
      `${MCAPI_PREFIX}/pipeline/apikey`,
      adminChange(ctx, 'mc.apikey', async (_request, reply) =>
        send<ApiKeyAnswer>(reply, { apiKey: await ctx.access.reissue() }),
      ),
    );
  }
}
