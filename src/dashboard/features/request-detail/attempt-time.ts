import type { RequestAttempt } from '../../../kit/index.ts';

// What an attempt's begin or end is shown as (issue 38). Behind a gateway the service's own
// time is the truth, and the gateway's sighting of it (minutes or hours later on a vendor
// polled slowly, or a request older than the index) is shown only where the service states
// none, and said to be one. The embedded service's instants are its own record: as before.

export type AttemptTimeShown =
  /** The service's own stamp, on its clock (`YYYY-MM-DD hh:mm:ss`). */
  | { readonly kind: 'stated'; readonly stamp: string }
  /** An instant the embedded service recorded itself. */
  | { readonly kind: 'recorded'; readonly iso: string }
  /** When this server (a gateway) saw it: no time of the service's. */
  | { readonly kind: 'seen'; readonly iso: string }
  | { readonly kind: 'running' }
  | { readonly kind: 'unknown' };

type Times = Pick<RequestAttempt, 'startedAt' | 'endedAt' | 'beginTime' | 'endTime' | 'observed'>;

export function attemptTime(attempt: Times, which: 'begin' | 'end'): AttemptTimeShown {
  const stamp = (which === 'begin' ? attempt.beginTime : attempt.endTime).trim();
  const iso = which === 'begin' ? attempt.startedAt : attempt.endedAt;
  if (attempt.observed && stamp !== '') return { kind: 'stated', stamp };
  // Begun and not ended: neither the service nor a sighting tells an end.
  if (which === 'end' && iso === null && attempt.startedAt !== null) return { kind: 'running' };
  if (iso === null) return { kind: 'unknown' };
  return attempt.observed ? { kind: 'seen', iso } : { kind: 'recorded', iso };
}
