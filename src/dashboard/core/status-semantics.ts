import type { StatusSemantics } from '../../kit/index.ts';

// What a service's status words mean, as `GET /mcapi/services` tells them (`statuses`, read
// by the kit): the one place the overview's counts, the badges, "Retry all…", the row
// actions and the request page's buttons read. No browser APIs here.

/** An action a word allows: yes, no (its contract, or the service refused it), or unknown. */
export type Allowed = 'yes' | 'no' | 'unknown';

/** The kind of a status word, for its badge's colour and the overview's counts. */
export type StatusKind = 'failed' | 'waiting' | 'running' | 'done' | 'stopped' | 'unknown';

export interface StatusClass {
  readonly kind: StatusKind;
  readonly failed: boolean;
  /** The request has ended: no cancel can stop it. */
  readonly final: boolean;
  readonly retry: Allowed;
  readonly cancel: Allowed;
  /** The service's words when it refused the action in this status, '' when it did not. */
  readonly retryRefusal: string;
  readonly cancelRefusal: string;
}

/**
 * What one word means on a service. A word in none of its classes (statuses are an open
 * set) is offered both actions as "unknown": the service decides, and a refusal is learnt.
 */
export function statusClass(semantics: StatusSemantics, word: string): StatusClass {
  const failed = semantics.failed.includes(word);
  const final = failed || semantics.final.includes(word);
  const waiting = semantics.waiting.includes(word);
  const running = semantics.running.includes(word);
  const known = final || waiting || running;
  const refusal = (action: 'retry' | 'cancel') =>
    semantics.learned.find((l) => l.action === action && l.status === word)?.message ?? '';
  const allowed = (list: readonly string[], action: 'retry' | 'cancel'): Allowed => {
    if (semantics.learned.some((l) => l.action === action && l.status === word)) return 'no';
    if (list.includes(word)) return 'yes';
    return known ? 'no' : 'unknown';
  };
  const retry = allowed(semantics.retryable, 'retry');
  const kind: StatusKind = failed
    ? 'failed'
    : waiting
      ? 'waiting'
      : running
        ? 'running'
        : final
          ? retry === 'yes'
            ? 'stopped'
            : 'done'
          : 'unknown';
  return {
    kind,
    failed,
    final,
    retry,
    cancel: allowed(semantics.cancellable, 'cancel'),
    retryRefusal: refusal('retry'),
    cancelRefusal: refusal('cancel'),
  };
}

/** The words of a class the server sends, as the request list's `status` filter takes them. */
export const failedWords = (semantics: StatusSemantics): readonly string[] => semantics.failed;

/**
 * What "Retry all…" selects without a status filter: the failed words the service retries
 * (or may: unknown), as the server's own default does.
 */
export function defaultBulkStatuses(
  semantics: StatusSemantics,
  action: 'retry' | 'cancel',
): readonly string[] {
  const [from, allowed] =
    action === 'retry'
      ? [semantics.failed, semantics.retryable]
      : [semantics.waiting, semantics.cancellable];
  const refused = (s: string) =>
    semantics.learned.some((l) => l.action === action && l.status === s);
  const usable = allowed.filter((s) => !refused(s));
  const both = from.filter((s) => usable.includes(s));
  if (both.length > 0) return both;
  return usable.length > 0 ? usable : from;
}
