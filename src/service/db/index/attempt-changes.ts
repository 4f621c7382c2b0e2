import type { SqlValue } from '../sql.ts';
import type { AttemptRecord, IndexChange, SeenChange } from './attempt-record.ts';

// What changes the index saw make of requests' attempts (attempts.ts), worked out in memory
// from each request's latest attempt, so that a round's thousands of changes are read in a
// few queries and written in a few statements of many rows (issue 28).

/** Status changes kept per attempt (the first and the latest ones). */
const CHANGES_KEPT = 50;

/** An attempt's columns that a change writes, as they are read and written. */
export interface AttemptState {
  requestId: string;
  attempt: number;
  status: string;
  stage: string;
  seenMs: number;
  endedMs: number | null;
  changes: string;
  failed: number;
  evidence: AttemptRecord['evidence'];
}

/** AttemptState's columns under their own names, as the query reading them names them. */
export const STATE_COLUMNS = `request_id AS "requestId", attempt AS "attempt", status AS "status",
  stage AS "stage", seen_ms AS "seenMs", ended_ms AS "endedMs", changes AS "changes",
  failed AS "failed", evidence AS "evidence"`;

/** The columns `stateRow` gives, in its order. */
export const STATE_INSERT = `service, request_id, attempt, status, stage, seen_ms, ended_ms,
  changes, failed, evidence`;
export const STATE_WIDTH = 10;

export const stateRow = (service: string, s: AttemptState): SqlValue[] => [
  service,
  s.requestId,
  s.attempt,
  s.status,
  s.stage,
  s.seenMs,
  s.endedMs,
  s.changes,
  s.failed,
  s.evidence,
];

function keptChanges(changes: SeenChange[]): SeenChange[] {
  if (changes.length <= CHANGES_KEPT) return changes;
  // The first (how it began) and the latest ones.
  return [changes[0] as SeenChange, ...changes.slice(changes.length - CHANGES_KEPT + 1)];
}

/** A service's words: a failure, and an end (beside the contract's). */
export interface Words {
  isFailed(status: string): boolean;
  isFinal(status: string): boolean;
}

/**
 * Applies `changes` in order to the latest attempts (`latest`, by request, updated in
 * place), and returns the attempts to write, each once as it ends up: new ones and changed
 * ones alike.
 */
export function applyChanges(
  latest: Map<string, AttemptState>,
  changes: readonly IndexChange[],
  words: Words,
  nowMs: number,
): AttemptState[] {
  const written = new Map<string, AttemptState>();
  const put = (state: AttemptState) => {
    latest.set(state.requestId, state);
    written.set(`${state.requestId}\u0000${state.attempt}`, state);
  };
  for (const change of changes) {
    const { requestId, status, stage } = change;
    const failed = words.isFailed(status);
    const ended = failed || change.ended === true || words.isFinal(status);
    let current = latest.get(requestId);
    if (!current) {
      if (change.before === null) {
        // A new request: only a failure needs a row now (its evidence is due).
        if (failed)
          put({
            requestId,
            attempt: 1,
            status,
            stage,
            seenMs: nowMs,
            endedMs: nowMs,
            changes: JSON.stringify([{ status, stage, atMs: nowMs }]),
            failed: 1,
            evidence: 'due',
          });
        continue;
      }
      // Its first change: the first attempt as the index first saw it.
      const { before } = change;
      const beforeFailed = words.isFailed(before.status);
      current = {
        requestId,
        attempt: 1,
        status: before.status,
        stage: before.stage,
        seenMs: before.firstMs,
        endedMs: words.isFinal(before.status) ? before.firstMs : null,
        changes: JSON.stringify([
          { status: before.status, stage: before.stage, atMs: before.firstMs },
        ]),
        failed: beforeFailed ? 1 : 0,
        // A failure seen before and never read: read what is left of it now.
        evidence: beforeFailed ? 'due' : '',
      };
      put(current);
    }
    if (current.status === status) {
      // The same status: a stage moved, or a detail showed its end.
      put({ ...current, stage, endedMs: current.endedMs ?? (ended ? nowMs : null) });
      continue;
    }
    const seenChange: SeenChange = { status, stage, atMs: nowMs };
    if (current.endedMs !== null) {
      // It had ended and shows another status: retried (here or at the service itself).
      put({
        requestId,
        attempt: current.attempt + 1,
        status,
        stage,
        seenMs: nowMs,
        endedMs: ended ? nowMs : null,
        changes: JSON.stringify([seenChange]),
        failed: failed ? 1 : 0,
        evidence: failed ? 'due' : '',
      });
      continue;
    }
    put({
      ...current,
      status,
      stage,
      changes: JSON.stringify(
        keptChanges([...(JSON.parse(current.changes) as SeenChange[]), seenChange]),
      ),
      endedMs: ended ? nowMs : null,
      failed: failed ? 1 : current.failed,
      evidence: failed && current.evidence !== 'kept' ? 'due' : current.evidence,
    });
  }
  return [...written.values()];
}
