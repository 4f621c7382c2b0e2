import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  API_KEY_HEADER,
  CONTENT_TYPES,
  ErrorCode,
  OPERATIONS,
  RESPONSE_TYPES,
  SESSION_COOKIE,
  type OperationName,
  type ResponseType,
} from '../../kit/wire.ts';
import type { ServiceContext } from '../context.ts';
import type { AuditSubject } from '../audit/audit-log.ts';
import type { Caller, ExtraAuthenticator } from '../auth/session-auth.ts';
import { ApiError } from '../errors.ts';
import { noteCaller } from '../http/access-log.ts';
import { isPersonalToken, tokenCaller } from '../auth/tokens.ts';
import type { ErrorRenderer } from '../errors-handler.ts';
import type { Part } from '../part.ts';
import { render } from '../render/render.ts';
import type { Document } from '../render/document.ts';
import { formatBytes } from '../limits.ts';
import { upstreamOperations } from '../gateway/adapter.ts';
import type { ServiceDirectory, ServiceRoute } from '../gateway/directory.ts';
import { BulkJobs } from '../bulk/jobs.ts';
import { bulkRoutes } from '../bulk/routes.ts';
import { operations } from './operations.ts';
import { Params } from './params.ts';

export const PIPELINE_API_PREFIX = '/pipelineapi';
/** `/services/<id>/pipelineapi/...` reaches service `<id>` (contract section 7). */
export const SERVICES_PREFIX = '/services';
const SERVICE_PATH = /^\/services\/([^/?]*)(\/pipelineapi(?:\/|$).*)$/;

/** The RequestId a call or its answer names, if any. */
function requestIdOf(fields: unknown): string | null {
  if (!fields || typeof fields !== 'object') return null;
  const record = fields as Record<string, unknown>;
  const value = record.requestid ?? record.RequestId;
  return typeof value === 'string' && value !== '' ? value : null;
}

interface Target {
  readonly operation: OperationName | undefined;
  readonly api: string;
  readonly type: ResponseType | undefined;
  readonly rawType: string | undefined;
}

function parseTarget(url: string): Target {
  const whole = url.split('?', 1)[0] ?? '';
  const path = SERVICE_PATH.exec(whole)?.[2] ?? whole;
  const segments = path.slice(PIPELINE_API_PREFIX.length + 1).split('/');
  const api = segments[0] ?? '';
  const rawType = segments.length > 1 ? segments.slice(1).join('/') : undefined;
  const type =
    rawType === undefined || rawType === ''
      ? 'xml'
      : (RESPONSE_TYPES as readonly string[]).includes(rawType)
        ? (rawType as ResponseType)
        : undefined;
  const operation = Object.hasOwn(OPERATIONS, api) ? (api as OperationName) : undefined;
  return { operation, api, type, rawType };
}

/** The ExecuteResponse of a failed Part C call (contract section 3). */
export function errorDocument(error: ApiError): Document {
  return {
    root: 'ExecuteResponse',
    body: {
      Status: error.httpStatus >= 500 ? 'SystemError' : 'Error',
      Code: error.code,
      Message: error.message,
    },
  };
}

/** Part C errors: an ExecuteResponse in the format the request asked for (contract section 3). */
const renderPartCError: ErrorRenderer = (error, url) => {
  const type = parseTarget(url).type ?? 'xml';
  return { contentType: CONTENT_TYPES[type], body: render(errorDocument(error), type) };
};

function sendDocument(
  reply: FastifyReply,
  status: number,
  doc: Document,
  type: ResponseType,
): void {
  void reply.code(status).header('content-type', CONTENT_TYPES[type]).send(render(doc, type));
}

const READ_METHODS = new Set(['GET', 'HEAD']);

/**
 * True when the request shows that a page of another origin sent it (contract section 4):
 * an Origin other than this server's own, or a Sec-Fetch-Site other than same-origin or
 * none. Scripts that send neither header are not affected.
 */
function sentByAnotherOrigin(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== request.host;
  } catch {
    // "null" (a sandboxed frame, a file: page) or garbage: not this server's own origin.
    return true;
  }
}

/**
 * Who calls, and whether they may call this operation on this service (`service`: its id,
 * whose roles decide for a signed-in person; contract section 12).
 */
export function authenticate(...args: Parameters<typeof authenticateCaller>): Caller {
  const caller = authenticateCaller(...args);
  // For the request's access line (http/access-log.ts).
  noteCaller(args[1], caller);
  return caller;
}

function authenticateCaller(
  ctx: ServiceContext,
  request: FastifyRequest,
  reply: FastifyReply,
  operation: OperationName,
  service: string,
  extra: ExtraAuthenticator | undefined,
  identified?: (caller: Caller) => void,
): Caller {
  if (!ctx.access.enabled) {
    throw new ApiError(403, ErrorCode.ApiDisabled, 'The pipeline API is disabled in the settings.');
  }
  // Credentials never add up: a signed-in person's role alone decides, whatever key or
  // cookie the browser also sends, and such a call never mints a cookie.
  const viaSession = extra?.(request, operation, service, identified);
  if (viaSession) return viaSession;
  const key = request.headers[API_KEY_HEADER.toLowerCase()];
  const cookie = request.cookies[SESSION_COOKIE];
  const cookieValid = cookie !== undefined && ctx.access.touchCookieSession(cookie);
  // A personal token acts as its person (contract section 12); it never mints a cookie,
  // which would carry the shared key's rights.
  if (typeof key === 'string' && isPersonalToken(key))
    return tokenCaller(ctx.dbs.system, ctx.clock, key, operation, service, identified);
  if (key !== undefined) {
    if (typeof key === 'string' && !ctx.access.sharedKeyEnabled) {
      throw new ApiError(
        401,
        ErrorCode.BadCredentials,
        `The shared ${API_KEY_HEADER} key is disabled by an administrator; send a personal token (Settings page).`,
      );
    }
    if (typeof key !== 'string' || !ctx.access.keyMatches(key)) {
      throw new ApiError(
        401,
        ErrorCode.BadCredentials,
        `The ${API_KEY_HEADER} key is wrong or was reissued.`,
      );
    }
    if (!cookieValid) {
      void reply.setCookie(SESSION_COOKIE, ctx.access.openCookieSession(), {
        path: '/',
        httpOnly: true,
        sameSite: 'strict',
      });
    }
    return { via: 'key' };
  }
  if (cookieValid) {
    // A browser attaches the cookie to calls from any page of the same site (another port
    // of the host included), so a change it authenticates must come from our own origin.
    if (!READ_METHODS.has(request.method) && sentByAnotherOrigin(request)) {
      throw new ApiError(
        403,
        ErrorCode.RoleForbidden,
        `A ${SESSION_COOKIE} cookie alone cannot authorise ${operation} from a page of another origin; send the ${API_KEY_HEADER} header.`,
      );
    }
    return { via: 'cookie' };
  }
  if (cookie !== undefined) {
    throw new ApiError(
      401,
      ErrorCode.BadCredentials,
      `The ${SESSION_COOKIE} session expired or ended; send the API key again.`,
    );
  }
  throw new ApiError(
    401,
    ErrorCode.NoCredentials,
    `No credentials: send the ${API_KEY_HEADER} header.`,
  );
}

interface CachedAnswer {
  readonly version: number;
  readonly body: Buffer;
}

/**
 * Rendered answers of reads by URL, with the data version they were made at. Bounded in
 * bytes, not entries: a few huge pages must not hold the memory that many small ones would.
 * The least recently used go first; an answer over the entry bound is never kept.
 */
export class AnswerCache {
  private readonly entries = new Map<string, CachedAnswer>();
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly maxEntryBytes: number,
  ) {}

  /** Bytes held now (keys are small and not counted). */
  get size(): number {
    return this.bytes;
  }

  get(key: string): CachedAnswer | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, entry: CachedAnswer): void {
    this.remove(key);
    if (entry.body.length > this.maxEntryBytes) return;
    this.entries.set(key, entry);
    this.bytes += entry.body.length;
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(oldest);
    }
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.body.length;
  }
}

/** Renders an answer within the size limit; a larger one is the client's to make smaller. */
function renderBounded(ctx: ServiceContext, doc: Document, type: ResponseType): Buffer {
  const tooLarge = () =>
    new ApiError(
      400,
      ErrorCode.BadParameter,
      `The answer would be larger than ${formatBytes(ctx.limits.maxAnswerBytes)} (the limit of one answer); ask for a smaller page (pagesize).`,
    );
  let text: string;
  try {
    text = render(doc, type);
  } catch (error) {
    // V8's longest string is about 512 MiB: rendering past it throws RangeError.
    if (error instanceof RangeError) throw tooLarge();
    throw error;
  }
  const body = Buffer.from(text);
  if (body.length > ctx.limits.maxAnswerBytes) throw tooLarge();
  return body;
}

/** Part C: one route dispatching every `/pipelineapi/<api>/<type>` call. */
export function pipelineApi(
  ctx: ServiceContext,
  services: ServiceDirectory,
  extraAuth?: ExtraAuthenticator,
): Part {
  const answers = new AnswerCache(ctx.limits.answerCacheBytes, ctx.limits.answerCacheEntryBytes);
  return {
    prefixes: [PIPELINE_API_PREFIX, SERVICES_PREFIX],
    renderError: renderPartCError,
    routes,
  };
  async function routes(app: FastifyInstance): Promise<void> {
    const bulk = new BulkJobs(ctx, (message, error) => app.log.error({ err: error }, message));
    bulkRoutes(app, ctx, services, bulk, (request, reply, operation, service, identified) =>
      authenticate(ctx, request, reply, operation, service, extraAuth, identified),
    );
    // After the engine's recovery (the app readies the server last), and before it stops.
    app.addHook('onReady', async () => bulk.resume());
    app.addHook('onClose', async () => bulk.stop());
    app.all(`${PIPELINE_API_PREFIX}/*`, (request, reply) =>
      answer(services.routes[0] as ServiceRoute, request, reply),
    );
    app.all(`${SERVICES_PREFIX}/:service/pipelineapi/*`, (request, reply) => {
      const id = (request.params as { service: string }).service;
      const route = services.route(id);
      if (!route)
        throw new ApiError(404, ErrorCode.UnknownApi, `No service ${JSON.stringify(id)} here.`);
      return answer(route, request, reply);
    });
  }

  /** Runs an operation on the embedded engine or an upstream, per the route. */
  function run(route: ServiceRoute, operation: OperationName, params: Params) {
    return route.upstream
      ? upstreamOperations[operation](route.upstream, params)
      : operations[operation](ctx, params);
  }

  /**
   * Reads are not audited, but a personal token refused on one is (contract section 12):
   * its person tried, and the entry names them and the token.
   */
  function readAuthenticate(
    route: ServiceRoute,
    request: FastifyRequest,
    reply: FastifyReply,
    operation: OperationName,
  ): void {
    const subject: AuditSubject = { userName: null, via: 'none', requestId: null };
    try {
      authenticate(ctx, request, reply, operation, route.id, extraAuth, (who) => {
        subject.userName = who.userName ?? null;
        subject.via = who.via;
      });
    } catch (error) {
      if (error instanceof ApiError && subject.via.startsWith('token '))
        ctx.audit.onBehalf(
          { address: request.ip, subject },
          { operation, service: route.id, parameters: request.query },
          { httpStatus: error.httpStatus, status: 'Error', message: error.message },
        );
      throw error;
    }
  }

  async function answer(
    route: ServiceRoute,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<FastifyReply> {
    const target = parseTarget(request.url);
    if (target.type === undefined) {
      throw new ApiError(
        400,
        ErrorCode.UnknownResponseType,
        `Unknown response type ${JSON.stringify(target.rawType)}: use xml, json or htm.`,
      );
    }
    if (target.operation === undefined) {
      throw new ApiError(404, ErrorCode.UnknownApi, `Unknown api ${JSON.stringify(target.api)}.`);
    }
    const method = OPERATIONS[target.operation];
    if (request.method !== method && !(method === 'GET' && request.method === 'HEAD')) {
      throw new ApiError(
        405,
        ErrorCode.MethodNotAllowed,
        `${target.operation} takes ${method}, not ${request.method}.`,
        {
          allow: method === 'GET' ? 'GET, HEAD' : method,
        },
      );
    }
    if (method !== 'GET') {
      const operation = target.operation;
      const type = target.type;
      const subject: AuditSubject = { userName: null, via: 'none', requestId: null };
      const parameters = { ...(request.query as object), ...(request.body as object) };
      const doc = await ctx.audit.around(
        request,
        { operation, service: route.id, parameters },
        subject,
        async () => {
          const caller = authenticate(
            ctx,
            request,
            reply,
            operation,
            route.id,
            extraAuth,
            (who) => {
              subject.userName = who.userName ?? null;
              subject.via = who.via;
            },
          );
          subject.via = caller.via;
          subject.userName = caller.userName ?? null;
          subject.requestId = requestIdOf(parameters);
          const result = await run(route, operation, new Params(request.query, request.body));
          subject.requestId ??= requestIdOf(result.body);
          return result;
        },
        (answer) => ({
          status: String(answer.body.Status ?? 'OK'),
          message: String(answer.body.Message ?? ''),
        }),
      );
      sendDocument(reply, 200, doc, type);
      return reply;
    }
    readAuthenticate(route, request, reply, target.operation);
    if (route.upstream || target.operation === 'inbox') {
      // An upstream's data changes without this server knowing, and so do the inbox's
      // files (no database changes when one arrives): never from the cache.
      const doc = await run(route, target.operation, new Params(request.query, request.body));
      void reply
        .code(200)
        .header('content-type', CONTENT_TYPES[target.type])
        .send(renderBounded(ctx, doc, target.type));
      return reply;
    }
    // Reads are answered from the cache while no database has changed since; an answer
    // that depends on "today" keeps the day in its key. A request list's AsOf stays true in
    // a cached answer: nothing has changed after it.
    const byDay = target.operation === 'requestlist' || target.operation === 'requeststats';
    const key = `${request.url}|${byDay ? ctx.time.day(ctx.clock.now()) : ''}`;
    const version = ctx.dbs.version();
    const hit = answers.get(key);
    if (hit && hit.version === version) {
      void reply.code(200).header('content-type', CONTENT_TYPES[target.type]).send(hit.body);
      return reply;
    }
    // Kept as bytes: a hit then costs no UTF-8 encoding at all.
    const body = renderBounded(
      ctx,
      await operations[target.operation](ctx, new Params(request.query, request.body)),
      target.type,
    );
    answers.set(key, { version, body });
    void reply.code(200).header('content-type', CONTENT_TYPES[target.type]).send(body);
    return reply;
  }
}
