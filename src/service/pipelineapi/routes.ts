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
import { ApiError } from '../errors.ts';
import { render } from '../render/render.ts';
import type { Document } from '../render/document.ts';
import { operations } from './operations.ts';
import { Params } from './params.ts';

export const PIPELINE_API_PREFIX = '/pipelineapi';

/** Who made a call, once authenticated; roles come with management console sessions. */
export interface Caller {
  readonly via: 'key' | 'cookie' | 'session';
  readonly role?: string;
}

/** Hook for credentials beyond the key and cookie (management console sessions). */
export type ExtraAuthenticator = (
  request: FastifyRequest,
  operation: OperationName,
) => Caller | undefined;

interface Target {
  readonly operation: OperationName | undefined;
  readonly api: string;
  readonly type: ResponseType | undefined;
  readonly rawType: string | undefined;
}

function parseTarget(url: string): Target {
  const path = url.split('?', 1)[0] ?? '';
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

/** The response type a failed call answers in: the one asked for, or XML. */
export function responseTypeOf(url: string): ResponseType {
  return parseTarget(url).type ?? 'xml';
}

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

export function sendDocument(
  reply: FastifyReply,
  status: number,
  doc: Document,
  type: ResponseType,
): void {
  void reply.code(status).header('content-type', CONTENT_TYPES[type]).send(render(doc, type));
}

function authenticate(
  ctx: ServiceContext,
  request: FastifyRequest,
  reply: FastifyReply,
  operation: OperationName,
  extra: ExtraAuthenticator | undefined,
): Caller {
  if (!ctx.access.enabled) {
    throw new ApiError(403, ErrorCode.ApiDisabled, 'The pipeline API is disabled in the settings.');
  }
  const key = request.headers[API_KEY_HEADER.toLowerCase()];
  const cookie = request.cookies[SESSION_COOKIE];
  const cookieValid = cookie !== undefined && ctx.access.touchCookieSession(cookie);
  if (key !== undefined) {
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
  if (cookieValid) return { via: 'cookie' };
  const viaSession = extra?.(request, operation);
  if (viaSession) return viaSession;
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

/** Rendered answers of reads by URL, with the data version they were made at; least recently used go first. */
class AnswerCache {
  private readonly entries = new Map<string, { version: number; body: Buffer }>();
  constructor(private readonly capacity: number) {}

  get(key: string): { version: number; body: Buffer } | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, entry: { version: number; body: Buffer }): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}

/** Part C: one route dispatching every `/pipelineapi/<api>/<type>` call. */
export function pipelineApiRoutes(ctx: ServiceContext, extraAuth?: ExtraAuthenticator) {
  const answers = new AnswerCache(512);
  return async function routes(app: FastifyInstance): Promise<void> {
    app.all(`${PIPELINE_API_PREFIX}/*`, async (request, reply) => {
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
      authenticate(ctx, request, reply, target.operation, extraAuth);
      if (method === 'GET') {
        // Reads are answered from the cache while no database has changed since; an answer
        // that depends on "today" keeps the day in its key.
        const key = `${request.url}|${target.operation === 'requestlist' ? ctx.time.day(ctx.clock.now()) : ''}`;
        const version = ctx.dbs.version();
        const hit = answers.get(key);
        if (hit && hit.version === version) {
          void reply.code(200).header('content-type', CONTENT_TYPES[target.type]).send(hit.body);
          return reply;
        }
        // Kept as bytes: a hit then costs no UTF-8 encoding at all.
        const body = Buffer.from(
          render(
            await operations[target.operation](ctx, new Params(request.query, request.body)),
            target.type,
          ),
        );
        answers.set(key, { version, body });
        void reply.code(200).header('content-type', CONTENT_TYPES[target.type]).send(body);
        return reply;
      }
      const doc = await operations[target.operation](ctx, new Params(request.query, request.body));
      sendDocument(reply, 200, doc, target.type);
      return reply;
    });
  };
}
