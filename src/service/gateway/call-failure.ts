import {
  ErrorCode,
  HttpError,
  NetworkError,
  OPERATIONS,
  ParseError,
  TimeoutError,
  type OperationName,
  type UpstreamCause,
} from '../../kit/index.ts';

// The one mapper from what went wrong in a call to an upstream, as the kit's errors say it
// (Transport's NetworkError and TimeoutError; HttpError for a refusal; ParseError for an
// answer that is no readable XML), to our contract's answer: its HTTP status, Part C code,
// and either the gateway's own cause (worded by kit/upstream-failure.ts) or the service's
// own words passed on as they are. Redaction and the error's class are the caller's
// (upstream.ts): this file decides nothing but codes and causes.

/** A failed call in our contract's terms. */
export type CallFailure =
  | { readonly httpStatus: number; readonly code: number; readonly cause: UpstreamCause }
  | { readonly httpStatus: number; readonly code: number; readonly words: string };

/** What the kit's error of a call does not carry, and the mapping needs. */
export interface CallFacts {
  readonly operation: OperationName;
  /** The gateway's bound on the whole call (`--upstream-timeout`). */
  readonly timeoutSeconds: number;
  /** The call's own time bound cut it, whatever error fetch gave for that. */
  readonly timedOut?: boolean;
  /** The answer had begun: the connection lost now stopped it midway. */
  readonly midway?: boolean;
  /** A 503/429 refusal passed on after this many attempts. */
  readonly attempts?: number;
  /** Where a redirect pointed. */
  readonly location?: string;
  /** A refusal inside a 2xx answer: its ExecuteResponse Status (`Error`, `SystemError`…). */
  readonly answerStatus?: string;
}

/** Operations that change something: a refusal of theirs is a state conflict. */
const CHANGES = new Set<OperationName>(
  (Object.keys(OPERATIONS) as OperationName[]).filter((op) => OPERATIONS[op] !== 'GET'),
);

/** The Part C code of a "not found" for each operation's object. */
function notFoundCode(operation: OperationName): number {
  if (operation.startsWith('request')) return ErrorCode.RequestNotFound;
  if (operation.endsWith('db') || operation.endsWith('table')) return ErrorCode.TableNotFound;
  if (operation === 'list' || operation === 'version' || operation === 'inbox')
    return ErrorCode.UnknownApi;
  return ErrorCode.PipelineNotFound;
}

/** The readable words of a body that is not ours to parse: text, or HTML without its tags. */
export function wordsOf(body: string): string {
  const text = body
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

const upstreamFailed = (cause: UpstreamCause): CallFailure => ({
  httpStatus: 502,
  code: ErrorCode.UpstreamFailed,
  cause,
});

/** A refusal: its status, the service's words (`serviceMessage`) and what the call adds. */
function refusal(error: HttpError, facts: CallFacts): CallFailure {
  const { status } = error;
  const words = error.serviceMessage ?? '';
  if (status >= 300 && status < 400)
    return upstreamFailed({ kind: 'redirect', httpStatus: status, location: facts.location ?? '' });
  if (facts.attempts !== undefined)
    return upstreamFailed({ kind: 'busy', httpStatus: status, attempts: facts.attempts, words });
  if (status < 300) {
    // Refused inside a 2xx answer: the matching 4xx, with the service's own words.
    if (facts.answerStatus === 'SystemError')
      return upstreamFailed({ kind: 'failed', httpStatus: null, words });
    const [httpStatus, code] = CHANGES.has(facts.operation)
      ? [409, ErrorCode.StateConflict]
      : [400, ErrorCode.BadParameter];
    return words
      ? { httpStatus, code, words }
      : { httpStatus, code, cause: { kind: 'refused', httpStatus: null } };
  }
  if (status === 401 || status === 403)
    return upstreamFailed({ kind: 'keyRefused', httpStatus: status, words });
  if (status >= 500) return upstreamFailed({ kind: 'failed', httpStatus: status, words });
  const code =
    status === 404
      ? notFoundCode(facts.operation)
      : status === 405
        ? ErrorCode.MethodNotAllowed
        : status === 409
          ? ErrorCode.StateConflict
          : ErrorCode.BadParameter;
  const httpStatus = status === 404 || status === 405 || status === 409 ? status : 400;
  // Its own words are passed on as they are; without any, the gateway says what it saw.
  return words
    ? { httpStatus, code, words }
    : { httpStatus, code, cause: { kind: 'refused', httpStatus: status } };
}

/**
 * Our contract's answer for a failed call. `error` is the kit's error of it, or what fetch
 * threw while its answer was read (`facts.midway`).
 */
export function callFailure(error: unknown, facts: CallFacts): CallFailure {
  if (error instanceof HttpError) return refusal(error, facts);
  if (error instanceof ParseError)
    // The answer's start (ParseError's body) tells XML that breaks from something else.
    return upstreamFailed(
      /^\s*</.test(error.body)
        ? { kind: 'unreadableXml', detail: error.message.slice(0, 120) }
        : { kind: 'notXml', start: wordsOf(error.body).slice(0, 80) },
    );
  const thrown = (error instanceof NetworkError ? error.cause : error) as Error & {
    cause?: { code?: string; message?: string };
  };
  if (facts.timedOut || error instanceof TimeoutError || thrown.name === 'TimeoutError')
    return {
      httpStatus: 504,
      code: ErrorCode.UpstreamTimeout,
      cause: { kind: 'timeout', seconds: facts.timeoutSeconds },
    };
  if (facts.midway)
    return { httpStatus: 504, code: ErrorCode.UpstreamTimeout, cause: { kind: 'midway' } };
  return upstreamFailed({
    kind: 'unreachable',
    error: thrown.cause?.code ?? thrown.cause?.message ?? thrown.message,
  });
}
