import type { FastifyInstance } from 'fastify';
import type { NewToken, RevokedTokenAnswer, TokensAnswer } from '../../kit/tokens.ts';
import { roleAtLeast } from '../../kit/wire.ts';
import { anonymousSubject } from '../audit/audit-log.ts';
import { field, merged } from '../auth/session-params.ts';
import { roleOn } from '../auth/service-roles.ts';
import {
  createToken,
  listTokens,
  MAX_TOKEN_DAYS,
  revokeTokenFor,
  TOKEN_NAME,
  WHY_ENDED,
} from '../auth/tokens.ts';
import { isRole } from '../auth/users.ts';
import type { ServiceContext } from '../context.ts';
import { userRowByLabel } from '../db/system/users.ts';
import { ApiError, McCode } from '../errors.ts';
import { MCAPI_PREFIX, MISSING, requireRole, requireSession, send } from './respond.ts';

// Personal API tokens (contract section 12): each person's own, for scripts that act as
// them. The value is in the answer of its creation alone. An administrator lists anyone's
// (`?user=NAME`) and revokes anyone's (issue 39: a person who leaves, a token that leaked).

export function tokenRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const audited = ctx.audit.serverChange.bind(ctx.audit);

  app.get(`${MCAPI_PREFIX}/tokens`, async (request, reply) => {
    const session = await requireSession(ctx, request);
    const user = field(merged(request.query, undefined), 'user', MISSING, false);
    let userId = session.userId;
    if (user && user.toLowerCase() !== session.userName.toLowerCase()) {
      requireRole(session, 'administrator');
      const row = await userRowByLabel(ctx.shared, user);
      if (!row)
        throw new ApiError(404, McCode.NotFound, `There is no user ${JSON.stringify(user)}.`);
      userId = row.ID;
    }
    return send<TokensAnswer>(reply, await listTokens(ctx.shared, ctx.clock, userId));
  });

  app.post(`${MCAPI_PREFIX}/tokens`, (request, reply) => {
    const subject = anonymousSubject();
    return audited(request, 'mc.token-create', subject, async () => {
      const session = await requireSession(ctx, request);
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
      const own = service === null ? session.role : await roleOn(ctx.shared, session, service);
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
      const token = await createToken(ctx.shared, ctx.clock, session, {
        name,
        days,
        role: roleText,
        service,
      });
      return send<NewToken>(reply, token);
    });
  });

  app.delete(`${MCAPI_PREFIX}/tokens/:id`, (request, reply) => {
    const subject = anonymousSubject();
    const id = (request.params as { id: string }).id;
    // The entry names the token revoked: its id is in the path, not the fields; and, when an
    // administrator revoked another person's, whose it was.
    const parameters: Record<string, string> = { id };
    const what = { operation: 'mc.token-revoke', service: null, parameters };
    return ctx.audit.around(request, what, subject, async () => {
      const session = await requireSession(ctx, request);
      Object.assign(subject, { userName: session.userName, via: 'session' });
      const number = /^\d{1,15}$/.test(id) ? Number(id) : undefined;
      const own =
        number === undefined
          ? undefined
          : await revokeTokenFor(ctx.shared, ctx.clock, number, WHY_ENDED.byOwner, session.userId);
      const anyone =
        own !== undefined || number === undefined || session.role !== 'administrator'
          ? undefined
          : await revokeTokenFor(
              ctx.shared,
              ctx.clock,
              number,
              WHY_ENDED.byAdministrator(session.userName),
            );
      if (own === undefined && anyone === undefined)
        throw new ApiError(
          404,
          McCode.NotFound,
          session.role === 'administrator'
            ? `There is no live token ${JSON.stringify(id)} to revoke.`
            : `You have no token ${JSON.stringify(id)} to revoke.`,
        );
      if (anyone !== undefined) parameters.owner = anyone;
      return send<RevokedTokenAnswer>(reply, { id: Number(id), revoked: true });
    });
  });
}
