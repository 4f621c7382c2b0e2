import type { FastifyRequest } from 'fastify';
import type { Clock, ServiceTime } from '../clock.ts';
import { appendAudit, pruneAudit, type AuditEntry } from '../db/system/audit.ts';
import type { Db } from '../db/sqlite.ts';
import { ApiError } from '../errors.ts';
import { toApiError } from '../errors-handler.ts';

/** Fields that are secrets or session ids: never written to the audit log. */
const SECRET_FIELDS = new Set(['password', 'sessionid', 'apikey', 'key']);
const MAX_VALUE = 256;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

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

  constructor(
    private readonly db: Db,
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
      this.write(request, what, subject, { httpStatus: 200, ...outcome(result) });
      return result;
    } catch (error) {
      const apiError = error instanceof ApiError ? error : toApiError(error, request.id);
      this.write(request, what, subject, {
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
   * A call the server makes on someone's behalf after their own call has ended (each
   * request of a bulk job), under that person and the address they called from.
   */
  onBehalf(
    who: { address: string; subject: AuditSubject },
    what: { operation: string; service: string | null; parameters: unknown },
    result: { httpStatus: number; status: string; message: string },
  ): void {
    this.write({ ip: who.address }, what, who.subject, result);
  }

  private write(
    request: Pick<FastifyRequest, 'ip'>,
    what: { operation: string; service: string | null; parameters: unknown },
    subject: AuditSubject,
    result: { httpStatus: number; status: string; message: string },
  ): void {
    const now = this.clock.now();
    try {
      appendAudit(this.db, {
        time: now.toISOString(),
        day: this.time.day(now),
        userName: subject.userName,
        via: subject.via,
        address: request.ip,
        service: what.service,
        operation: what.operation,
        parameters: publicParameters(what.parameters),
        requestId: subject.requestId,
        ...result,
      });
      if (now.getTime() - this.lastPrune > PRUNE_EVERY_MS) {
        this.lastPrune = now.getTime();
        pruneAudit(
          this.db,
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
}

/** The call's fields minus secrets, each value shortened to what a reader needs. */
function publicParameters(source: unknown): Record<string, string> {
  if (!source || typeof source !== 'object') return {};
  const kept: [string, string][] = [];
  for (const [name, value] of Object.entries(source as Record<string, unknown>)) {
    if (SECRET_FIELDS.has(name.toLowerCase())) continue;
    const text = Array.isArray(value) ? value.map(String).join(',') : String(value);
    kept.push([name, text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE)}…` : text]);
  }
  // fromEntries makes every name an own field, `__proto__` included.
  return Object.fromEntries(kept);
}
