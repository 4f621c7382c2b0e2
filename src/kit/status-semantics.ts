import { fieldsOf, objectsOf, wordsOf } from './liberal.ts';

// What a service's status words mean, as `GET /mcapi/services` tells them (`statuses`):
// our engine's contract words for the embedded service, an upstream's configured words
// or interfaces.md's defaults, with what an upstream refused.

/** A retry or cancel a service refused in one status, learnt by the gateway from its refusal. */
export interface LearnedRefusal {
  readonly action: 'retry' | 'cancel';
  readonly status: string;
  /** The service's own words when it refused (untrusted text; keys already cut out). */
  readonly message: string;
  /** When it refused (ISO). */
  readonly at: string;
}

/** The classes of a service's status words, in the order the server writes them. */
export const STATUS_CLASSES = [
  'failed',
  'waiting',
  'running',
  'final',
  'retryable',
  'cancellable',
] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

/** Every class's words, settled: what the server acts on, and the head of what it tells. */
export type StatusClassWords = Readonly<Record<StatusClass, readonly string[]>>;

/** The classes of a service's status words, where they come from and what it refused. */
export interface StatusSemantics extends StatusClassWords {
  /** `contract`: our engine; `configured`/`defaults`: an upstream's words. */
  readonly from: 'contract' | 'configured' | 'defaults';
  /** What the upstream refused: a status it would not retry or cancel. */
  readonly learned: readonly LearnedRefusal[];
}

/** Our engine's words (contract section 5): known exactly, never learnt. */
export const CONTRACT_WORDS: StatusClassWords = {
  failed: ['Error'],
  waiting: ['Wait'],
  running: ['Start', 'Process'],
  final: ['Finish', 'Error', 'Stop'],
  retryable: ['Error', 'Stop'],
  cancellable: ['Wait', 'Start', 'Process'],
};

/**
 * A vendor's words as far as interfaces.md names them: Finish, and Start and Process (its
 * request logs' states); `Error` for a failure and `Wait` for a queued request, the words
 * --upstream-failed and a bulk cancel have always assumed. It shows no word for a cancelled
 * request, so none is assumed: a word in no class is offered both actions and the upstream
 * decides (a refusal is learnt).
 */
export const VENDOR_DEFAULT_WORDS: StatusClassWords = {
  failed: ['Error'],
  waiting: ['Wait'],
  running: ['Start', 'Process'],
  final: ['Finish', 'Error'],
  retryable: ['Error'],
  cancellable: ['Wait', 'Start', 'Process'],
};

/** Our engine's words (contract section 5), as the services list tells them. */
export const CONTRACT_STATUSES: StatusSemantics = {
  ...CONTRACT_WORDS,
  from: 'contract',
  learned: [],
};

/** A vendor's words as far as interfaces.md names them, when the server does not say. */
export const VENDOR_DEFAULT_STATUSES: StatusSemantics = {
  ...VENDOR_DEFAULT_WORDS,
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
