import type { ListedRequest } from '../../db/index/ingest.ts';
import type { Document } from '../../render/document.ts';
import type { PageInfo } from '../paging.ts';

/**
 * The RequestList answer (contract section 8), of the embedded engine and an upstream alike:
 * each request with the fields an upstream's list gives (ListedRequest).
 */
export function requestListDocument(
  requests: readonly ListedRequest[],
  paging: PageInfo,
  date: string,
  id: string | undefined,
  /** Only where `since` can be answered: the embedded engine, or a day the index watches. */
  asOf?: string,
): Document {
  return {
    root: 'RequestList',
    body: {
      Request: requests.map((r) => ({
        RequestId: r.requestId,
        PipelineId: r.pipelineId,
        Name: r.name,
        Status: r.status,
        Stage: r.stage,
        BeginDate: r.beginDate,
      })),
      Info: {
        Index: paging.Index,
        Prev: paging.Prev,
        Next: paging.Next,
        Count: paging.Count,
        Error: false,
        Date: date,
        Id: id ?? '',
        Total: paging.Total,
        ...(asOf === undefined ? {} : { AsOf: asOf }),
      },
    },
  };
}
