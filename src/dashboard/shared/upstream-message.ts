// What a message about a service behind the gateway says, told apart: the gateway's own
// failure (worded by the dashboard, what-failed.tsx) or words to show as written. No hooks,
// no browser APIs: error-view.tsx and the unit tests read it as it is.

import { ErrorCode, HttpError, type UpstreamCause } from '../../kit/index.ts';

const UPSTREAM_CODES: readonly number[] = [ErrorCode.UpstreamFailed, ErrorCode.UpstreamTimeout];

/**
 * What a message about a service behind the gateway says, told apart: the gateway's own
 * sentence (src/service/gateway/upstream.ts, written in English from its cause by
 * kit/upstream-failure.ts) as its cause, which the dashboard words in the user's language
 * keeping its technical detail and the service's own words inside it verbatim; or words of
 * the service or of the call (`said`), shown verbatim.
 */
export type UpstreamMessage = UpstreamCause | { readonly kind: 'said'; readonly words: string };

/**
 * What the server told beside a message: an error answer of a Part C call carries only its
 * `code` (Status/Code/Message); the services list and the fleet give the `cause` in data
 * (undefined when the message is not the gateway's own sentence).
 */
export type FailureTold =
  | { readonly code: number | undefined; readonly cause?: undefined }
  | { readonly cause: UpstreamCause | undefined; readonly code?: undefined };

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Tells the gateway's own sentence about service `name` apart from words to show verbatim.
 * With a `cause` (the services list, the fleet) the server has said it in data, and the
 * message's text is never read: a service's words that imitate our sentence stay its words.
 * Only an error answer of a Part C call, which carries nothing but its `code`, is read by its
 * shape, and only under the code the gateway gives that sentence (5002 or 5004); a sentence
 * about another service, or of a shape not listed, is `said`.
 *
 * @example
 * readUpstreamMessage(service.message, service.name, { cause: service.cause });
 * readUpstreamMessage('Service Tokyo cannot be reached (ECONNREFUSED).', 'Tokyo', { code: 5002 });
 * // → { kind: 'unreachable', error: 'ECONNREFUSED' }
 */
export function readUpstreamMessage(
  message: string,
  name: string,
  told: FailureTold,
): UpstreamMessage {
  const said = { kind: 'said', words: message } as const;
  if (told.cause) return told.cause;
  const { code } = told;
  if (code === undefined) return said;
  return (
    (code === ErrorCode.UpstreamFailed && failedShape(message, name)) ||
    (code === ErrorCode.UpstreamTimeout && timeoutShape(message, name)) ||
    said
  );
}

/** A matcher of the gateway's sentences about service `name`, after "Service <name> ". */
function shapes(message: string, name: string) {
  const prefix = `^Service ${escape(name)} `;
  return (shape: string) => new RegExp(prefix + shape).exec(message);
}

const status = (text: string | undefined) => Number(text);

/** The sentences of a 5002 (kit/upstream-failure.ts, upstreamSentence), or undefined. */
function failedShape(message: string, name: string): UpstreamCause | undefined {
  const match = shapes(message, name);
  let m = match(String.raw`cannot be reached \(([\s\S]+)\)\.$`);
  if (m) return { kind: 'unreachable', error: m[1] ?? '' };
  m = match(String.raw`failed \(HTTP (\d{3})\)(?:: ([\s\S]*)|\.)$`);
  if (m) return { kind: 'failed', httpStatus: status(m[1]), words: m[2] ?? '' };
  m = match(String.raw`failed: ([\s\S]*)$`);
  if (m) {
    // A SystemError without words says so in a sentence of ours.
    const words = m[1] === `Service ${name} refused without a message.` ? '' : (m[1] ?? '');
    return { kind: 'failed', httpStatus: null, words };
  }
  m = match(String.raw`refused the gateway's key \(HTTP (\d{3})\)(?:: ([\s\S]*)|\.)$`);
  if (m) return { kind: 'keyRefused', httpStatus: status(m[1]), words: m[2] ?? '' };
  m = match(String.raw`is busy \(HTTP (\d{3})(?:: ([\s\S]*))?\); asked (\d+) times?\.$`);
  if (m)
    return { kind: 'busy', httpStatus: status(m[1]), attempts: Number(m[3]), words: m[2] ?? '' };
  m = match(String.raw`answered with a redirect \(HTTP (\d{3})(?: to ([\s\S]*))?\)\.$`);
  if (m) return { kind: 'redirect', httpStatus: status(m[1]), location: m[2] ?? '' };
  m = match(
    String.raw`answered (more than )?(\d+(?:\.\d+)?) MiB, beyond the gateway's bound of (\d+(?:\.\d+)?) MiB \(--upstream-max-mb\)\.$`,
  );
  if (m)
    return {
      kind: 'tooLarge',
      mebibytes: Number(m[2]),
      declared: m[1] === undefined,
      boundMebibytes: Number(m[3]),
    };
  m = match(
    String.raw`answered a value of <([\s\S]+)> of at least (\d+) characters, beyond the gateway's bound of (\d+) characters for one value \(--upstream-max-value-mb\); it was read no further\.$`,
  );
  if (m)
    return {
      kind: 'valueTooLarge',
      element: m[1] ?? '',
      characters: Number(m[2]),
      boundCharacters: Number(m[3]),
    };
  m = match(String.raw`answered XML that cannot be read \(([\s\S]*)\)\.$`);
  if (m) return { kind: 'unreadableXml', detail: m[1] ?? '' };
  m = match(String.raw`answered something that is not XML(?:: ([\s\S]*))?\.$`);
  if (m) return { kind: 'notXml', start: m[1] ?? '' };
  return undefined;
}

/** The sentences of a 5004, or undefined. */
function timeoutShape(message: string, name: string): UpstreamCause | undefined {
  const match = shapes(message, name);
  const m = match(String.raw`did not answer within (\d+(?:\.\d+)?) s\.$`);
  if (m) return { kind: 'timeout', seconds: Number(m[1]) };
  if (match(String.raw`stopped answering midway\.$`)) return { kind: 'midway' };
  return undefined;
}

/** The message and code of an answer of our server that says the service behind it failed. */
export function upstreamFailureOf(
  error: unknown,
): { readonly message: string; readonly code: number } | undefined {
  if (!isUpstreamFailure(error)) return undefined;
  const failure = error as HttpError;
  return { message: failure.serviceMessage ?? '', code: failure.code ?? ErrorCode.UpstreamFailed };
}

/** An answer of our server that says the service behind it failed to answer. */
export function isUpstreamFailure(error: unknown): boolean {
  return (
    error instanceof HttpError && error.code !== undefined && UPSTREAM_CODES.includes(error.code)
  );
}
