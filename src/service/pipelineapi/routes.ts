import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  CONTENT_TYPES,
  ErrorCode,
  OPERATIONS,
  type OperationName,
  SESSION_COOKIE,
  type ResponseType,
} from '../../kit/wire.ts';
import type { ServiceContext } from '../context.ts';
import type { AuditSubject } from '../audit/audit-log.ts';
import type { Caller, ExtraAuthenticator } from '../auth/session-auth.ts';
import { ApiError } from '../errors.ts';
import type { ErrorRenderer } from '../errors-handler.ts';
import type { CachedReadResolver } from '../http/cached-reads.ts';
import type { Part } from '../part.ts';
import { render } from '../render/render.ts';
import type { Document } from '../render/document.ts';
import { formatBytes } from '../limits.ts';
import type { ServiceRoute, Services } from '../gateway/service-state.ts';
import { AnswerCache, cachedReads, cacheKey } from './answer-cache.ts';
import { errorDocument } from './answers/execute-response.ts';
import { authenticate, plainReader } from './authenticate.ts';
import { noteCaller } from '../http/access-log.ts';
import { OPERATION_MODULES } from './operations/index.ts';
import { Params } from './params.ts';
import { parseTarget, PIPELINE_API_PREFIX, SERVICES_PREFIX } from './target.ts';

export { PIPELINE_API_PREFIX, SERVICES_PREFIX } from './target.ts';

/** The RequestId a call or its answer names, if any. */
function requestIdOf(fields: unknown): string | null {
  if (!fields || typeof fields !== 'object') return null;
  const record = fields as Record<string, unknown>;
  const value = record.requestid ?? record.RequestId;
  return typeof value === 'string' && value !== '' ? value : null;
}

/** One Part C call whose operation and response type are known. */
interface KnownCall {
  readonly route: ServiceRoute;
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  readonly operation: OperationName;
  readonly type: ResponseType;
}

/** Writes who the caller is into the audit's subject as soon as they are known. */
const noteIn =
  (subject: AuditSubject) =>
  (who: Caller): void => {
    subject.userName = who.userName ?? null;
    subject.via = who.via;
  };

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

/**
 * Part C: one route dispatching every `/pipelineapi/<api>/<type>` call to its operation's
 * module (operations/), for the embedded engine or an upstream. `beside` registers routes
 * that share Part C's paths and scope (the bulk endpoints).
 */
export function pipelineApi(
  ctx: ServiceContext,
  services: Services,
  extraAuth?: ExtraAuthenticator,
  beside?: (app: FastifyInstance) => void,
): Part & { readonly cachedReads: CachedReadResolver | undefined } {
  const answers = new AnswerCache(ctx.limits.answerCacheBytes, ctx.limits.answerCacheEntryBytes);
  return {
    prefixes: [PIPELINE_API_PREFIX, SERVICES_PREFIX],
    renderError: renderPartCError,
    routes,
    // Plain /pipelineapi reaches the first service: its cached reads exist only if it is ours.
    cachedReads: services.routes[0]?.upstream ? undefined : cachedReads(ctx, answers),
  };
  async function routes(app: FastifyInstance): Promise<void> {
    beside?.(app);
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
    const entry = OPERATION_MODULES[operation];
    return route.upstream ? entry.upstream(route.upstream, params) : entry.embedded(ctx, params);
  }

  /**
   * Reads are not audited, but a personal token refused on one is (contract section 12):
   * its person tried, and the entry names them and the token.
   */
  async function readAuthenticate(
    route: ServiceRoute,
    request: FastifyRequest,
    reply: FastifyReply,
    operation: OperationName,
  ): Promise<void> {
    const subject: AuditSubject = { userName: null, via: 'none', requestId: null };
    try {
      await authenticate(ctx, request, reply, operation, route.id, extraAuth, noteIn(subject));
    } catch (error) {
      if (error instanceof ApiError && subject.via.startsWith('token '))
        await ctx.audit.onBehalf(
          { address: request.ip, subject },
          { operation, service: route.id, parameters: request.query },
          { httpStatus: error.httpStatus, status: 'Error', message: error.message },
        );
      throw error;
    }
  }

  /**
   * Answers a Part C call. A read answered from the cache is sent before this returns
   * (undefined: Fastify's synchronous handler style, no promise and no microtask per
   * answer); everything else returns the promise of its answer.
   */
  function answer(
    route: ServiceRoute,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<FastifyReply> | undefined {
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
    const { operation, type } = target;
    if (method !== 'GET') return change({ route, request, reply, operation, type });
    // The shared key with a live cookie, or the cookie alone, is known without the store:
    // such a read stays synchronous. Anyone else (a person, a token, a cookie to mint) is
    // looked up first.
    const plain = plainReader(ctx.access, request.headers, request.cookies[SESSION_COOKIE]);
    if (plain === undefined)
      return readAuthenticate(route, request, reply, operation).then(
        () => read(route, request, reply, target, operation, type) ?? reply,
      );
    noteCaller(request, { via: plain });
    return read(route, request, reply, target, operation, type);
  }

  function read(
    route: ServiceRoute,
    request: FastifyRequest,
    reply: FastifyReply,
    target: ReturnType<typeof parseTarget>,
    operation: OperationName,
    type: ResponseType,
  ): Promise<FastifyReply> | undefined {
    if (route.upstream || operation === 'inbox')
      return passThrough({ route, request, reply, operation, type });
    // Reads are answered from the cache while no database has changed since.
    const key = cacheKey(ctx, request.url, target);
    const version = ctx.dbs.version();
    const hit = answers.get(key);
    if (hit && hit.version === version) {
      void reply.code(200).header('content-type', CONTENT_TYPES[type]).send(hit.body);
      return undefined;
    }
    return fill(request, reply, operation, type, key, version);
  }

  /** A call that changes something: audited, whoever makes it and however it ends. */
  async function change(call: KnownCall): Promise<FastifyReply> {
    const { route, request, reply, operation, type } = call;
    const subject: AuditSubject = { userName: null, via: 'none', requestId: null };
    const parameters = { ...(request.query as object), ...(request.body as object) };
    const doc = await ctx.audit.around(
      request,
      { operation, service: route.id, parameters },
      subject,
      async () => {
        const caller = await authenticate(
          ctx,
          request,
          reply,
          operation,
          route.id,
          extraAuth,
          noteIn(subject),
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

  /**
   * An upstream's data changes without this server knowing, and so do the inbox's files
   * (no database changes when one arrives): never from the cache.
   */
  async function passThrough(call: KnownCall): Promise<FastifyReply> {
    const { route, request, reply, operation, type } = call;
    const doc = await run(route, operation, new Params(request.query, request.body));
    void reply
      .code(200)
      .header('content-type', CONTENT_TYPES[type])
      .send(renderBounded(ctx, doc, type));
    return reply;
  }

  /** A read the cache did not hold at this data version: made, kept and sent. */
  async function fill(
    request: FastifyRequest,
    reply: FastifyReply,
    operation: OperationName,
    type: ResponseType,
    key: string,
    version: number,
  ): Promise<FastifyReply> {
    // Kept as bytes: a hit then costs no UTF-8 encoding at all.
    const body = renderBounded(
      ctx,
      await OPERATION_MODULES[operation].embedded(ctx, new Params(request.query, request.body)),
      type,
    );
    answers.set(key, { version, body });
    void reply.code(200).header('content-type', CONTENT_TYPES[type]).send(body);
    return reply;
  }
}
