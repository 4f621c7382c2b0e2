import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  AuditParameterError,
  readAuditFilter,
  readAuditPaging,
  type AuditAnswer,
} from '../../kit/audit.ts';
import { auditCsv } from '../audit/csv-export.ts';
import { field, merged } from '../auth/session-params.ts';
import type { ServiceContext } from '../context.ts';
import { queryAudit } from '../db/system/audit.ts';
import { ApiError, McCode } from '../errors.ts';
import { MCAPI_PREFIX, MISSING, requireRole, requireSession, send } from './respond.ts';

// The audit log (contract section 7; administrators only): a page of it, and the whole
// filtered range as CSV. The filter's parameters are the kit's (kit/audit.ts), as the
// dashboard sends them.

/** Largest sum of entries in one answer of /mcapi/audit (each entry is at most 4 KB). */
export const AUDIT_ANSWER_BYTES = 1024 * 1024;

/** The audit log's filters of a call, each checked (400/2003 naming it). */
function auditParams(request: FastifyRequest) {
  const params = merged(request.query, request.body);
  const read = (name: string) => field(params, name, MISSING, false);
  const checked = <T>(readIt: () => T): T => {
    try {
      return readIt();
    } catch (error) {
      if (error instanceof AuditParameterError)
        throw new ApiError(400, McCode.WrongType, error.message);
      throw error;
    }
  };
  return {
    filters: checked(() => readAuditFilter(read)),
    index: () => checked(() => readAuditPaging(read, 'index')),
    pageSize: () => checked(() => readAuditPaging(read, 'pageSize')),
  };
}

export function auditRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  // The audit log, newest first. An answer holds at most AUDIT_ANSWER_BYTES of entries
  // whatever the page size: a page that would pass it ends early, and `next` says where
  // the rest begins (-1: nothing follows).
  app.get(`${MCAPI_PREFIX}/audit`, async (request, reply) => {
    requireRole(await requireSession(ctx, request), 'administrator');
    const asked = auditParams(request);
    const index = asked.index();
    const pageSize = asked.pageSize();
    const page = await queryAudit(ctx.shared, {
      ...asked.filters,
      index,
      pageSize,
      maxBytes: AUDIT_ANSWER_BYTES,
    });
    return send<AuditAnswer>(reply, {
      total: page.total,
      index,
      pageSize,
      next: page.next,
      entries: page.entries,
    });
  });

  // The whole filtered range as CSV, newest first, written as it is read (administrators).
  app.get(`${MCAPI_PREFIX}/audit/export`, async (request, reply) => {
    requireRole(await requireSession(ctx, request), 'administrator');
    const { filters } = auditParams(request);
    const name = ['audit', filters.from, filters.to].filter(Boolean).join('-');
    return reply
      .header('content-type', 'text/csv; charset=UTF-8')
      .header('content-disposition', `attachment; filename="${name}.csv"`)
      .send(auditCsv(ctx.shared, filters));
  });
}
