import { useMutation } from '@tanstack/react-query';
import { HttpError, MC_SESSION_HEADER, Transport, auditFilterData } from '../../../kit/index.ts';
import { NO_COOKIES, useAuth } from '../../core/auth.ts';
import { downloadText } from '../../shared/download.ts';
import type { AuditParams } from '../../shared/audit.ts';

/** The server's CSV of the audit log: every entry matching the filters, newest first. */
export const AUDIT_EXPORT_PATH = '/mcapi/audit/export';

/** The file's name: the range it holds, as the server names it too. */
export function exportFileName(view: AuditParams): string {
  return `${['audit', view.from, view.to].filter(Boolean).join('-')}.csv`;
}

/** A long range takes a while to write out: minutes, not the kit's default 30 s. */
const EXPORT_TIMEOUT_MS = 10 * 60_000;

/**
 * Downloads the filtered range as the server writes it (GET /mcapi/audit/export with the
 * session header). The dashboard sends its session by header, never by cookie, so a plain
 * link cannot carry it: the file is fetched, then saved through the browser's download.
 */
export function useAuditDownload(view: AuditParams) {
  const auth = useAuth();
  return useMutation({
    mutationFn: async (): Promise<void> => {
      const headers: Record<string, string> =
        auth?.kind === 'session' ? { [MC_SESSION_HEADER]: auth.sessionId } : {};
      const raw = await new Transport({ ...NO_COOKIES, timeoutMs: EXPORT_TIMEOUT_MS }).send(
        'GET',
        AUDIT_EXPORT_PATH,
        // The filters of the page's view alone (no paging: the whole range).
        auditFilterData(view),
        headers,
      );
      if (raw.status >= 400) {
        let result: Record<string, unknown> | undefined;
        try {
          result = (JSON.parse(raw.body) as { result?: Record<string, unknown> }).result;
        } catch {
          result = undefined;
        }
        throw new HttpError(
          raw.status,
          raw.method,
          raw.url,
          typeof result?.code === 'number' ? result.code : undefined,
          typeof result?.message === 'string' ? result.message : undefined,
          raw.body,
        );
      }
      downloadText(exportFileName(view), 'text/csv;charset=utf-8', raw.body);
    },
  });
}
