import type { FastifyError, FastifyInstance } from 'fastify';
import { ErrorCode } from '../kit/wire.ts';
import { storageProblemOf } from './db/storage-problem.ts';
import { ApiError } from './errors.ts';
import { StoreUnavailable } from './db/sql.ts';

/** A failure of the data folder (full, read-only, locked) in words for the caller, or undefined. */
function storageFailure(error: unknown): string | undefined {
  const problem = storageProblemOf(error);
  switch (problem?.kind) {
    case 'full':
      return 'The service cannot write its data: the disk of its data folder is full. Nothing was changed; try again once space is freed.';
    case 'busy':
      return 'The service is busy writing its data. Nothing was changed; try again in a moment.';
    case 'unwritable':
      return `The service cannot write its data (${problem.code}). Nothing was changed; try again later.`;
    default:
      return undefined;
  }
}

/** The error every Part of the service answers with, whatever was thrown. */
export function toApiError(error: unknown, correlationId: string): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as Partial<FastifyError>;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, ErrorCode.BodyTooLarge, 'The request body is larger than 1 MiB.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(
        400,
        ErrorCode.BadParameter,
        'The request body must be application/x-www-form-urlencoded.',
      );
    default:
  }
  // PostgreSQL gone (contract section 11): 503 naming it (its password masked); the store
  // connects again by itself once it is back.
  if (error instanceof StoreUnavailable)
    return new ApiError(
      503,
      ErrorCode.Unavailable,
      `The database ${error.database} is unreachable; nothing was changed. Try again in a moment.`,
    );
  const storage = storageFailure(error);
  if (storage) return new ApiError(503, ErrorCode.Unavailable, storage);
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    return new ApiError(
      400,
      ErrorCode.BadParameter,
      `The request is malformed: ${fastifyError.message ?? 'unreadable'}.`,
    );
  }
  return new ApiError(
    500,
    ErrorCode.Internal,
    `Internal error; the service log has the details under ${correlationId}.`,
  );
}

/** How one Part writes an error: its envelope, in the format the request asked for. */
export type ErrorRenderer = (
  error: ApiError,
  url: string,
) => { readonly contentType: string; readonly body: string };

/** Each Part registers its renderer for its path prefix; one handler serves them all. */
export interface ErrorRenderers {
  register(prefix: string, renderer: ErrorRenderer): void;
}

export function installErrorHandler(app: FastifyInstance): ErrorRenderers {
  const renderers = new Map<string, ErrorRenderer>();
  app.setErrorHandler((error, request, reply) => {
    const apiError = toApiError(error, request.id);
    if (apiError.httpStatus >= 500)
      request.log.error({ err: error, correlationId: request.id }, 'request failed');
    for (const [name, value] of Object.entries(apiError.headers)) void reply.header(name, value);
    const path = request.url.split('?', 1)[0] ?? '';
    const prefix = [...renderers.keys()].find((p) => path === p || path.startsWith(`${p}/`));
    if (prefix === undefined)
      return reply
        .code(apiError.httpStatus)
        .type('text/plain; charset=utf-8')
        .send(apiError.message);
    const rendered = (renderers.get(prefix) as ErrorRenderer)(apiError, request.url);
    return reply
      .code(apiError.httpStatus)
      .header('content-type', rendered.contentType)
      .send(rendered.body);
  });
  return {
    register(prefix, renderer) {
      renderers.set(prefix, renderer);
    },
  };
}
