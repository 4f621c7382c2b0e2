import type { AppLogEntry, RequestDetail, RequestLogEntry } from '../../../kit/records.ts';
import { CData, type Document, type Tree } from '../../render/document.ts';

/** Rows per stage: our own services state them; a vendor service does not, and none is made up. */
type RowCounts = 'sensorRows' | 'filterKept' | 'jointRows';

/**
 * What a RequestDetail says of one request, whichever service ran it: the kit's decoded
 * RequestDetail, less the dates it reads out, with a count not stated as null.
 */
export interface RequestDetailFields extends Omit<
  RequestDetail,
  'begin' | 'end' | RowCounts | 'requestLog' | 'appLog'
> {
  readonly sensorRows: number | null;
  readonly filterKept: number | null;
  readonly jointRows: number | null;
  /** Present when asked for (`requestlog`, `applog`); their lines are the kit's. */
  readonly requestLog?: readonly RequestLogEntry[] | undefined;
  readonly appLog?: readonly AppLogEntry[] | undefined;
}

const counted = (name: string, value: number | null): Tree =>
  value === null ? {} : { [name]: value };

/** The RequestDetail answer (contract section 8), of the embedded engine and an upstream alike. */
export function requestDetailDocument(detail: RequestDetailFields): Document {
  const { requestLog, appLog } = detail;
  return {
    root: 'RequestDetail',
    body: {
      RequestId: detail.requestId,
      PipelineId: detail.pipelineId,
      Name: detail.name,
      Status: detail.status,
      Stage: detail.stage,
      BeginTime: detail.beginTime,
      EndTime: detail.endTime,
      SensorTime: detail.sensorTime,
      FilterTime: detail.filterTime,
      JointTime: detail.jointTime,
      SensorFile: new CData(detail.sensorFile),
      FileSize: detail.fileSize,
      ...counted('SensorRows', detail.sensorRows),
      ...counted('FilterKept', detail.filterKept),
      ...counted('JointRows', detail.jointRows),
      ...(requestLog
        ? {
            RequestLog: {
              Log: requestLog.map((l) => ({
                Date: l.date,
                Stage: l.stage,
                Event: l.event,
                Status: l.status,
                ActionOrder: l.actionOrder,
                Message: l.message,
              })),
            },
          }
        : {}),
      ...(appLog
        ? {
            AppLog: {
              Log: appLog.map((l) => ({
                Index: l.index,
                Date: l.date,
                Type: l.type,
                Message: l.message,
              })),
            },
          }
        : {}),
    },
  };
}
