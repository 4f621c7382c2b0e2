import type { AttemptChange, AttemptLogLine, RequestAttempt } from '../../../kit/attempts.ts';

// The shapes of an attempt as the index keeps it (attempts.ts) and of a change the index
// took in, below both the log that keeps them and the changes that are worked out of them
// (attempt-changes.ts).

/** One status change of an attempt, at the time (epoch ms, our clock) it was seen. */
export interface SeenChange extends Omit<AttemptChange, 'at'> {
  readonly atMs: number;
}

/** A log line kept as the failure's evidence, as the attempts answer tells it. */
export type KeptLogLine = AttemptLogLine;

/** What a requestdetail read at a failure told of it. */
export interface FailureEvidence {
  readonly message: string;
  readonly log: readonly KeptLogLine[];
  readonly sensorFile: string;
  readonly beginTime: string;
  readonly endTime: string;
}

/**
 * One attempt as kept (gateway or embedded: the same shape, see db/status/attempts.ts): the
 * attempts answer's (the kit's RequestAttempt) with our clock's epoch ms for its instants,
 * and without who retried or cancelled it, which the audit log tells, nor whether its
 * instants are observations, which the service it belongs to tells. Its beginTime and
 * endTime are what the service stated when they were kept (a gateway: a failure's
 * requestdetail, the index's EndTime), each on the service's clock; the attempts answer
 * completes them from the vendor's requestdetail (mcapi/request-history.ts).
 */
export interface AttemptRecord extends Omit<
  RequestAttempt,
  'startedAt' | 'endedAt' | 'changes' | 'retriedBy' | 'cancelledBy' | 'observed'
> {
  /**
   * When it was first seen (the gateway) or first changed (embedded), epoch ms; null when
   * not known (a request from before attempts were kept).
   */
  readonly startedMs: number | null;
  /** When it was seen ended, epoch ms; null while it runs. */
  readonly endedMs: number | null;
  readonly changes: readonly SeenChange[];
}

/** A change of a request the index just took in: `before` is null for a new one. */
export interface IndexChange {
  readonly requestId: string;
  readonly before: {
    readonly status: string;
    readonly stage: string;
    readonly firstMs: number;
  } | null;
  readonly status: string;
  readonly stage: string;
  /** A requestdetail showed its EndTime. */
  readonly ended?: boolean;
}
