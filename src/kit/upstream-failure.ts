// Why a gateway got no usable answer from a service behind it, in data: the server's
// `GET /mcapi/services` and `GET /mcapi/fleet` give it as `code` and `cause` beside their
// English `message` (and `indexErrorCode`/`indexErrorCause` beside `indexError`), so that a
// client words the failure in its user's language without reading the sentence's shape,
// and a service's own words inside it stay apart, as the service wrote them.

/**
 * What failed, with its technical detail. Texts in it the service or its connection wrote
 * (`error`, `words`, `location`, `detail`, `start`) are untrusted and shown as written;
 * numbers are the gateway's own.
 */
export type UpstreamCause =
  /** It could not be reached: the connection's code (ECONNREFUSED, ENOTFOUND…) or its words. */
  | { readonly kind: 'unreachable'; readonly error: string }
  /** It did not answer within the gateway's timeout (`--upstream-timeout`). */
  | { readonly kind: 'timeout'; readonly seconds: number }
  /** It stopped answering midway through an answer. */
  | { readonly kind: 'midway' }
  /** It failed: an HTTP 5xx (`httpStatus`), or a SystemError in its answer (`httpStatus` null). */
  | { readonly kind: 'failed'; readonly httpStatus: number | null; readonly words: string }
  /** It refused the gateway's key (HTTP 401 or 403). */
  | { readonly kind: 'keyRefused'; readonly httpStatus: number; readonly words: string }
  /** It was busy (HTTP 503 or 429) as many times as the gateway asked. */
  | {
      readonly kind: 'busy';
      readonly httpStatus: number;
      readonly attempts: number;
      readonly words: string;
    }
  /** It answered with a redirect, which the gateway does not follow. */
  | { readonly kind: 'redirect'; readonly httpStatus: number; readonly location: string }
  /** Its answer was larger than the gateway's bound (`--upstream-max-mb`). */
  | {
      readonly kind: 'tooLarge';
      /** Its size (MiB, to a tenth): as its Content-Length declared it, else read so far. */
      readonly mebibytes: number;
      readonly declared: boolean;
      readonly boundMebibytes: number;
    }
  /**
   * One value of its answer (an element's text or an attribute) ran past the gateway's bound
   * for a single value (`--upstream-max-value-mb`): read no further.
   */
  | {
      readonly kind: 'valueTooLarge';
      /** The element the value belongs to, as the service named it. */
      readonly element: string;
      /** Characters it is known to hold at least: read so far, or one more than the bound. */
      readonly characters: number;
      readonly boundCharacters: number;
    }
  /** It answered XML that cannot be read: the parser's words. */
  | { readonly kind: 'unreadableXml'; readonly detail: string }
  /** It answered something that is not XML: how it began. */
  | { readonly kind: 'notXml'; readonly start: string }
  /** It refused the call without words of its own: an HTTP 4xx, or a refusal in its answer. */
  | { readonly kind: 'refused'; readonly httpStatus: number | null };

export type UpstreamCauseKind = UpstreamCause['kind'];

export const UPSTREAM_CAUSE_KINDS: readonly UpstreamCauseKind[] = [
  'unreachable',
  'timeout',
  'midway',
  'failed',
  'keyRefused',
  'busy',
  'redirect',
  'tooLarge',
  'valueTooLarge',
  'unreadableXml',
  'notXml',
  'refused',
];

/** A failure of a service behind the gateway: its Part C code (5002, 5004…) and its cause. */
export interface UpstreamFailure {
  readonly code: number;
  readonly cause: UpstreamCause;
}

/**
 * The gateway's English sentence for a failure of service `name`: the `message` of its error
 * answers and of its services list, written from the cause so that the two never disagree.
 *
 * @example
 * upstreamSentence('Tokyo', { kind: 'unreachable', error: 'ECONNREFUSED' });
 * // → 'Service Tokyo cannot be reached (ECONNREFUSED).'
 */
export function upstreamSentence(name: string, cause: UpstreamCause): string {
  const service = `Service ${name}`;
  const said = (words: string) => (words ? `: ${words}` : '.');
  switch (cause.kind) {
    case 'unreachable':
      return `${service} cannot be reached (${cause.error}).`;
    case 'timeout':
      return `${service} did not answer within ${cause.seconds} s.`;
    case 'midway':
      return `${service} stopped answering midway.`;
    case 'failed':
      return cause.httpStatus === null
        ? `${service} failed: ${cause.words || `${service} refused without a message.`}`
        : `${service} failed (HTTP ${cause.httpStatus})${said(cause.words)}`;
    case 'keyRefused':
      return `${service} refused the gateway's key (HTTP ${cause.httpStatus})${said(cause.words)}`;
    case 'busy':
      return `${service} is busy (HTTP ${cause.httpStatus}${cause.words ? `: ${cause.words}` : ''}); asked ${cause.attempts} ${cause.attempts === 1 ? 'time' : 'times'}.`;
    case 'redirect':
      return `${service} answered with a redirect (HTTP ${cause.httpStatus}${cause.location ? ` to ${cause.location}` : ''}).`;
    case 'tooLarge':
      return `${service} answered ${cause.declared ? '' : 'more than '}${cause.mebibytes.toFixed(1)} MiB, beyond the gateway's bound of ${cause.boundMebibytes} MiB (--upstream-max-mb).`;
    case 'valueTooLarge':
      return `${service} answered a value of <${cause.element}> of at least ${cause.characters} characters, beyond the gateway's bound of ${cause.boundCharacters} characters for one value (--upstream-max-value-mb); it was read no further.`;
    case 'unreadableXml':
      return `${service} answered XML that cannot be read (${cause.detail}).`;
    case 'notXml':
      return `${service} answered something that is not XML${cause.start ? `: ${cause.start}` : ''}.`;
    case 'refused':
      return cause.httpStatus === null
        ? `${service} refused without a message.`
        : `${service} refused the call (HTTP ${cause.httpStatus}).`;
  }
}

type Loose = Readonly<Record<string, unknown>>;
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const int = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) ? v : undefined;
const positive = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;

/** A cause whose every field was read, or undefined when one could not be. */
function whole<const C extends Readonly<Record<string, unknown>>>(
  cause: C,
): { readonly [K in keyof C]: Exclude<C[K], undefined> } | undefined {
  return Object.values(cause).includes(undefined)
    ? undefined
    : (cause as { readonly [K in keyof C]: Exclude<C[K], undefined> });
}

/**
 * A `cause` as the server wrote it, decoded strictly: undefined for anything not whole (a
 * kind this kit does not know, a number missing), so that a client shows the message as it
 * is rather than a made-up cause.
 */
export function decodeUpstreamCause(value: unknown): UpstreamCause | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const c = value as Loose;
  const status = int(c.httpStatus);
  // A status the server wrote as null (a refusal or failure within an answer) is whole.
  const statusOrNull = c.httpStatus === null ? null : status;
  switch (c.kind) {
    case 'unreachable':
      return typeof c.error === 'string' ? { kind: 'unreachable', error: c.error } : undefined;
    case 'timeout':
      return whole({ kind: 'timeout', seconds: positive(c.seconds) });
    case 'midway':
      return { kind: 'midway' };
    case 'failed':
      return whole({ kind: 'failed', httpStatus: statusOrNull, words: text(c.words) });
    case 'keyRefused':
      return whole({ kind: 'keyRefused', httpStatus: status, words: text(c.words) });
    case 'busy':
      return whole({
        kind: 'busy',
        httpStatus: status,
        attempts: int(c.attempts),
        words: text(c.words),
      });
    case 'redirect':
      return whole({ kind: 'redirect', httpStatus: status, location: text(c.location) });
    case 'tooLarge':
      return whole({
        kind: 'tooLarge',
        mebibytes: positive(c.mebibytes),
        declared: c.declared === true,
        boundMebibytes: positive(c.boundMebibytes),
      });
    case 'valueTooLarge':
      return whole({
        kind: 'valueTooLarge',
        element: text(c.element),
        characters: int(c.characters),
        boundCharacters: int(c.boundCharacters),
      });
    case 'unreadableXml':
      return { kind: 'unreadableXml', detail: text(c.detail) };
    case 'notXml':
      return { kind: 'notXml', start: text(c.start) };
    case 'refused':
      return whole({ kind: 'refused', httpStatus: statusOrNull });
    default:
      return undefined;
  }
}
