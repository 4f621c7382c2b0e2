import { fieldsOf, objectsOf, wordsOf } from './liberal.ts';

// What a service's status words mean, as `GET /mcapi/services` tells them (`statuses`):
// our engine's contract words for the embedded service, an upstream's configured words
// or interfaces.md's defaults, with what an upstream refused.

/** A retry or cancel a service refused in one status, learnt by the gateway. */
export interface LearnedRefusal {
  readonly action: 'retry' | 'cancel';
  readonly status: string;
  /** The service's own words when it refused (untrusted text). */
  readonly message: string;
  /** When it refused (ISO). */
  readonly at: string;
}

/** The classes of a service's status words, where they come from and what it refused. */
export interface StatusSemantics {
  readonly failed: readonly string[];
  readonly waiting: readonly string[];
  readonly running: readonly string[];
  readonly final: readonly string[];
  readonly retryable: readonly string[];
  readonly cancellable: readonly string[];
  /** `contract`: our engine; `configured`/`defaults`: an upstream's words. */
  readonly from: 'contract' | 'configured' | 'defaults';
  readonly learned: readonly LearnedRefusal[];
}

/** Our engine's words (contract section 5). */
export const CONTRACT_STATUSES: StatusSemantics = {
  failed: ['Error'],
  waiting: ['Wait'],
  running: ['Start', 'Process'],
  final: ['Finish', 'Error', 'Stop'],
  retryable: ['Error', 'Stop'],
  cancellable: ['Wait', 'Start', 'Process'],
  from: 'contract',
  learned: [],
};

/** A vendor's words as far as interfaces.md names them, when the server does not say. */
export const VENDOR_DEFAULT_STATUSES: StatusSemantics = {
  failed: ['Error'],
  waiting: ['Wait'],
  running: ['Start', 'Process'],
  final: ['Finish', 'Error'],
  retryable: ['Error'],
  cancellable: ['Wait', 'Start', 'Process'],
  from: 'defaults',
  learned: [],
};

const FROM = ['contract', 'configured', 'defaults'] as const;

/**
 * A service's `statuses`, read liberally: a class missing reads as the defaults' one for
 * that kind of service (our contract's for the embedded one), a refusal of an unknown
 * action or without a status is left out.
 *
 * @example decodeStatusSemantics(service.statuses, service.embedded === true).retryable
 */
export function decodeStatusSemantics(value: unknown, embedded: boolean): StatusSemantics {
  const fallback = embedded ? CONTRACT_STATUSES : VENDOR_DEFAULT_STATUSES;
  const s = fieldsOf<StatusSemantics>(value);
  if (s === undefined) return fallback;
  const learned = Array.isArray(s.learned)
    ? objectsOf<LearnedRefusal>(s.learned, 'statuses.learned')
    : [];
  return {
    failed: wordsOf(s.failed) ?? fallback.failed,
    waiting: wordsOf(s.waiting) ?? fallback.waiting,
    running: wordsOf(s.running) ?? fallback.running,
    final: wordsOf(s.final) ?? fallback.final,
    retryable: wordsOf(s.retryable) ?? fallback.retryable,
    cancellable: wordsOf(s.cancellable) ?? fallback.cancellable,
    from: FROM.find((from) => from === s.from) ?? fallback.from,
    learned: learned.flatMap((r): LearnedRefusal[] =>
      (r.action !== 'retry' && r.action !== 'cancel') || typeof r.status !== 'string'
        ? []
        : [
            {
              action: r.action,
              status: r.status,
              message: typeof r.message === 'string' ? r.message : '',
              at: typeof r.at === 'string' ? r.at : '',
            },
          ],
    ),
  };
}
