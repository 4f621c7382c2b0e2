import type { FastifyRequest } from 'fastify';
import type { Clock, ServiceTime } from '../clock.ts';
import {
  appendAudit,
  pruneAudit,
  updateAuditSummary,
  type AuditEntry,
} from '../db/system/audit.ts';
import type { Sql } from '../db/sql.ts';
import { ApiError } from '../errors.ts';
import { toApiError } from '../errors-handler.ts';
import { boundEntry } from '../db/system/audit-bounds.ts';
import { describeSummary, RefusalCounter, type RefusalSummary } from './refusals.ts';

const PRUNE_EVERY_MS = 60 * 60 * 1000;

/** The operation of an entry that counts a minute's refusals of strangers beyond the bound. */
export const REFUSALS_OPERATION = 'unauthenticated';

/** Who is acting, filled in by the handler as soon as it knows. */
export interface AuditSubject {
  userName: string | null;
  via: AuditEntry['via'];
  requestId: string | null;
}

/** Nobody known yet: the handler fills in who it is as soon as it knows. */
export const anonymousSubject = (): AuditSubject => ({
  userName: null,
  via: 'none',
  requestId: null,
});

/**
 * The audit log (contract section 7): every state-changing call through the server with
 * its outcome, whether it succeeded or was refused. Kept `retentionDays`, pruned hourly.
 */
export class AuditLog {
  private lastPrune = 0;
  private readonly refusals = new RefusalCounter();
  private readonly summaryWrites = new WeakMap<RefusalSummary, Promise<number>>();

  constructor(
    private readonly sql: Sql,
    private readonly clock: Clock,
    private readonly time: ServiceTime,
    private readonly retentionDays: number,
    private readonly log: (message: string, error: unknown) => void,
  ) {}

  /**
   * Runs a state-changing call and records it with its outcome: the answer's status and
   * message, or the error's. The call's result or error passes through unchanged.
   */
  async around<T>(
    request: FastifyRequest,
    what: { operation: string; service: string | null; parameters: unknown },
    subject: AuditSubject,
    run: () => Promise<T>,
    outcome: (result: T) => { status: string; message: string } = () => ({
      status: 'success',
      message: '',
    }),
  ): Promise<T> {
    try {
      const result = await run();
      await this.write(request, what, subject, { httpStatus: 200, ...outcome(result) });
      return result;
    } catch (error) {
      const apiError = error instanceof ApiError ? error : toApiError(error, request.id);
      await this.write(request, what, subject, {
        httpStatus: apiError.httpStatus,
        status: apiError.httpStatus >= 500 ? 'SystemError' : 'Error',
        message: apiError.message,
      });
      throw error;
    }
  }

  /**
   * A change of this server's own (sign-in, sign-out, settings): no pipeline service, and
   * the call's fields (a body field winning over a query field) as its parameters.
   */
  serverChange<T>(
    request: FastifyRequest,
    operation: string,
    subject: AuditSubject,
    run: () => Promise<T>,
  ): Promise<T> {
    const parameters = {
      ...(request.query as object | undefined),
      ...(request.body as object | undefined),
    };
    return this.around(request, { operation, service: null, parameters }, subject, run);
  }

  /**
   * A call under a person and the address they called from, outside a request's own
   * handling (a personal token refused on a read). Never throws, as `around`.
   */
  onBehalf(
    who: { address: string; subject: AuditSubject },
    what: { operation: string; service: string | null; parameters: unknown },
    result: { httpStatus: number; status: string; message: string },
  ): Promise<void> {
    return this.write({ ip: who.address }, what, who.subject, result);
  }

  /**
   * A call the server makes on someone's behalf after their own call has ended (each
   * request of a bulk job), written in `tx`, the shared store's transaction that records the
   * call's outcome: the entry commits with the outcome it reports, or neither does (a failed
   * write throws, and rolls both back).
   */
  async onBehalfIn(
    tx: Sql,
    who: { address: string; subject: AuditSubject },
    what: { operation: string; service: string | null; parameters: unknown },
    result: { httpStatus: number; status: string; message: string },
  ): Promise<void> {
    await appendAudit(tx, this.entry({ ip: who.address }, what, who.subject, result).entry);
  }

  /** The entry of a call as it is written, bounded; a stranger's refusal is kept short. */
  private entry(
    request: Pick<FastifyRequest, 'ip'>,
    what: { operation: string; service: string | null; parameters: unknown },
    subject: AuditSubject,
    result: { httpStatus: number; status: string; message: string },
  ) {
    const now = this.clock.now();
    const stranger = subject.via === 'none' && result.httpStatus >= 400 && result.httpStatus < 500;
    const { truncated: _truncated, ...entry } = boundEntry(
      {
        time: now.toISOString(),
        day: this.time.day(now),
        userName: subject.userName,
        via: subject.via,
        address: request.ip,
        service: what.service,
        operation: what.operation,
        parameters: what.parameters,
        requestId: subject.requestId,
        ...result,
      },
      { compact: stranger },
    );
    return { now, stranger, entry };
  }

  /** Never throws: a failed write is logged (see the catch). */
  private async write(
    request: Pick<FastifyRequest, 'ip'>,
    what: { operation: string; service: string | null; parameters: unknown },
    subject: AuditSubject,
    result: { httpStatus: number; status: string; message: string },
  ): Promise<void> {
    try {
      const { now, stranger, entry } = this.entry(request, what, subject, result);
      // Refused before anyone was known: anyone can send these, so they are kept short,
      // and beyond a rate per address only counted.
      if (stranger) {
        const decision = this.refusals.admit(request.ip, what.operation, result.httpStatus, now);
        if (decision.kind === 'summary') {
          await this.summarise(decision.summary, now);
          return;
        }
      }
      await appendAudit(this.sql, entry);
      if (now.getTime() - this.lastPrune > PRUNE_EVERY_MS) {
        this.lastPrune = now.getTime();
        await pruneAudit(
          this.sql,
          new Date(now.getTime() - this.retentionDays * 86_400_000).toISOString(),
        );
      }
    } catch (error) {
      // The call itself is done (or refused) already; a full disk must not turn its answer
      // into an error. The log line says what the audit log is missing.
      this.log(
        `audit entry not written: ${what.operation} by ${subject.userName ?? subject.via}`,
        error,
      );
    }
  }

  /** Writes a minute's summary of refusals the first time, then updates its count in place. */
  private async summarise(summary: RefusalSummary, now: Date): Promise<void> {
    const { parameters, message } = describeSummary(summary);
    // The first write is under way: its entry is the one to update once it is there.
    const seq = summary.seq ?? (await this.summaryWrites.get(summary));
    if (seq !== undefined) {
      await updateAuditSummary(this.sql, seq, {
        parameters,
        message,
        httpStatus: summary.httpStatus,
      });
      return;
    }
    const { truncated: _truncated, ...entry } = boundEntry({
      time: now.toISOString(),
      day: this.time.day(now),
      userName: null,
      via: 'none',
      address: summary.address,
      service: null,
      operation: REFUSALS_OPERATION,
      parameters,
      httpStatus: summary.httpStatus,
      status: 'Error',
      message,
      requestId: null,
    });
    const write = appendAudit(this.sql, entry);
    this.summaryWrites.set(summary, write);
    summary.seq = await write;
  }
}
