import { CData, type Document, type Tree } from '../../render/document.ts';

/** A line of a request's request log. */
export interface RequestLogLine {
  readonly date: string;
  readonly stage: string;
  readonly event: string;
  readonly status: string;
  readonly actionOrder: number;
  readonly message: string;
}

/** A line of a request's application log. */
export interface AppLogLine {
  readonly index: number;
  readonly date: string;
  readonly type: string;
  readonly message: string;
}

/** What a RequestDetail says of one request, whichever service ran it. */
export interface RequestDetailFields {
  readonly requestId: string;
  readonly pipelineId: string;
  readonly name: string;
  readonly status: string;
  readonly stage: string;
  readonly beginTime: string;
  readonly endTime: string;
  readonly sensorTime: string;
  readonly filterTime: string;
  readonly jointTime: string;
  readonly sensorFile: string;
  readonly fileSize: string;
  /** Rows per stage: our own services state them; a vendor service does not, and none is made up. */
  readonly sensorRows: number | null;
  readonly filterKept: number | null;
  readonly jointRows: number | null;
  /** Present when asked for (`requestlog`, `applog`). */
  readonly requestLog?: readonly RequestLogLine[] | undefined;
  readonly appLog?: readonly AppLogLine[] | undefined;
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
