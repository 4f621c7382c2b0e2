import type { RequestStage, RequestStatus } from '../../kit/wire.ts';
import type { Clock, ServiceTime } from '../clock.ts';
import type { Db } from '../db/sqlite.ts';
import {
  appendAppLog,
  appendRequestLog,
  dequeue,
  enqueue,
  getRequest,
  setRequestTimes,
  setStatus,
  type AppLogType,
  type RequestLogEntry,
  type RequestRow,
  type RequestTimes,
} from '../db/status/requests.ts';
import { recordAttemptChange } from '../db/status/attempts.ts';
import type { StageName } from '../db/system/pipelines.ts';

/** One line of the request log; `actionOrder` 0 is the request or stage itself. */
export interface LogLine {
  readonly stage?: StageName | '';
  readonly event: RequestLogEntry['event'];
  readonly status: RequestLogEntry['status'];
  readonly actionOrder?: number;
  readonly message: string;
}

/** Everything one change of a request writes; absent parts are left as they are. */
export interface Transition {
  /** New status; `stage` defaults to the request's current one. */
  readonly status?: RequestStatus;
  readonly stage?: RequestStage;
  readonly errorMsg?: string;
  /** Other columns of the request's times (attempt, begin, stage times, input file). */
  readonly times?: RequestTimes;
  /** Sets the end time to now. */
  readonly end?: boolean;
  readonly log?: LogLine | readonly LogLine[];
  readonly appLog?: { readonly type: AppLogType; readonly message: string };
  readonly enqueue?: boolean;
  readonly dequeue?: boolean;
}

/** A request that reached an end (Finish, Error or Stop), for metrics and notifications. */
export interface EndedRequest {
  readonly requestId: string;
  readonly pipelineId: string;
  readonly status: string;
  readonly stage: string;
  /** Its error message, when it ended in Error. */
  readonly message: string;
  /** From its begin to its end; undefined when it never began (cancelled while waiting). */
  readonly seconds: number | undefined;
}

type RequestRef = Pick<RequestRow, 'requestId' | 'day' | 'stage' | 'pipelineId'>;

/**
 * Owns every write of a request's state to the status database. A transition is one
 * transaction, so a reader never sees a status without its log line or end time, and a
 * crash leaves either all of it or none.
 */
export class RequestRecorder {
  /** Failures that could not be written yet (disk full), written again with backoff. */
  private readonly unrecorded = new Map<string, () => void>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly time: ServiceTime,
    /** Told of each request that ended (metrics), once its end is written. */
    private readonly onEnd?: (ended: EndedRequest) => void,
    /** Told of each change of a request's status (metrics), once it is written. */
    private readonly onStatus?: (pipelineId: string, status: RequestStatus) => void,
  ) {}

  /**
   * The status last written for each request that runs: a run writes Process at every
   * stage, which is one change of status, not three. Only Start and Process are kept, so
   * it holds the requests that run (an entry lost to a crash is the recovery's to end).
   */
  private readonly running = new Map<string, RequestStatus>();

  stamp(): string {
    return this.time.stamp(this.clock.now());
  }

  transition(request: RequestRef, change: Transition): void {
    const { requestId } = request;
    this.db.transaction(() => {
      if (change.status) {
        setStatus(this.db, request, {
          status: change.status,
          stage: change.stage ?? request.stage,
          errorMsg: change.errorMsg,
          stamp: this.stamp(),
        });
      }
      const times: RequestTimes = change.end
        ? { ...change.times, endTime: this.stamp() }
        : (change.times ?? {});
      setRequestTimes(this.db, requestId, times);
      const lines =
        change.log === undefined ? [] : Array.isArray(change.log) ? change.log : [change.log];
      for (const line of lines as readonly LogLine[]) {
        appendRequestLog(this.db, requestId, {
          stage: line.stage ?? '',
          event: line.event,
          status: line.status,
          actionOrder: line.actionOrder ?? 0,
          message: line.message,
          date: this.time.logDate(this.clock.now()),
        });
      }
      if (change.appLog) {
        appendAppLog(this.db, requestId, {
          date: this.time.clockTime(this.clock.now()),
          type: change.appLog.type,
          message: change.appLog.message,
        });
      }
      if (change.enqueue) enqueue(this.db, requestId, request.pipelineId);
      if (change.dequeue) dequeue(this.db, requestId);
      // The request's attempts (issue 25), after its app log so that a failure keeps its line.
      if (change.status)
        recordAttemptChange(this.db, requestId, {
          status: change.status,
          stage: change.stage ?? request.stage,
          atMs: this.clock.now().getTime(),
          stamp: this.stamp(),
          errorMsg: change.errorMsg,
        });
    })();
    if (change.status) this.statusWritten(request, change.status);
    if (change.end && change.status && this.onEnd) {
      const row = getRequest(this.db, requestId);
      // Both stamps are in the service's zone: their difference is the run's length.
      const seconds =
        row?.beginTime && row.endTime
          ? (Date.parse(row.endTime.replace(' ', 'T')) -
              Date.parse(row.beginTime.replace(' ', 'T'))) /
            1000
          : undefined;
      this.onEnd({
        requestId,
        pipelineId: request.pipelineId,
        status: change.status,
        stage: change.stage ?? request.stage,
        message: change.errorMsg ?? '',
        seconds,
      });
    }
  }

  private statusWritten(request: RequestRef, status: RequestStatus): void {
    const { requestId } = request;
    const before = this.running.get(requestId);
    if (status === 'Start' || status === 'Process') this.running.set(requestId, status);
    else this.running.delete(requestId);
    if (before !== status) this.onStatus?.(request.pipelineId, status);
  }

  /** Ends a request in Error: status, end time, both logs, out of the queue. */
  fail(request: RequestRef, stage: StageName, message: string): void {
    this.transition(request, {
      status: 'Error',
      stage,
      errorMsg: message,
      end: true,
      log: { stage, event: 'End', status: 'Error', message },
      appLog: { type: 'ERROR', message },
      dequeue: true,
    });
  }

  /**
   * Ends a request in Error. When the status database cannot be written (its disk is full)
   * the worker is freed anyway and the write is tried again with backoff; meanwhile the
   * request may be retried or cancelled like any failed one.
   */
  failOrRetry(
    request: RequestRef,
    stage: StageName,
    message: string,
    options: { stopped: () => boolean; log?: (message: string, error?: unknown) => void },
    attempt = 0,
  ): void {
    const { requestId } = request;
    try {
      this.fail(request, stage, message);
      this.unrecorded.delete(requestId);
    } catch (error) {
      if (options.stopped() || !this.db.open) return;
      options.log?.(`request ${requestId}: its failure could not be recorded yet`, error);
      const again = (): void => {
        if (!this.unrecorded.has(requestId)) return;
        const current = getRequest(this.db, requestId);
        // Retried or cancelled meanwhile: that newer state stands.
        if (!current || (current.status !== 'Start' && current.status !== 'Process')) {
          this.unrecorded.delete(requestId);
          return;
        }
        this.failOrRetry(request, stage, message, options, attempt + 1);
      };
      this.unrecorded.set(requestId, again);
      setTimeout(again, Math.min(30_000, 500 * 2 ** attempt)).unref();
    }
  }

  /** A newer state (a retry, a cancel) stands: a failure not written yet is dropped. */
  forgetFailure(requestId: string): void {
    this.unrecorded.delete(requestId);
  }

  /**
   * Ends a request in Stop: a cancelled one at the stage it reached (`at`), or one that no
   * worker runs at the stage it had.
   */
  stop(request: RequestRef, message: string, at?: StageName): void {
    this.transition(request, {
      status: 'Stop',
      stage: at ?? request.stage,
      end: true,
      log: { stage: at ?? '', event: 'End', status: 'Stop', message },
      appLog: { type: 'WARN', message: 'Cancelled by request' },
      dequeue: true,
    });
  }
}
