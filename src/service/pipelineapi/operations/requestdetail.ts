import { ErrorCode } from '../../../kit/wire.ts';
import type { TreeValue } from '../../../kit/index.ts';
import { formatDuration, toSeconds } from '../../clock.ts';
import { getRequest, readAppLog, readRequestLog } from '../../db/status/requests.ts';
import { getPipeline } from '../../db/system/pipelines.ts';
import { ApiError } from '../../errors.ts';
import { elementOf, elementsOf, leafText } from '../../../kit/index.ts';
import { normalDate } from '../../gateway/zone.ts';
import { requestDetailDocument } from '../answers/request-detail.ts';
import { REQUEST_ID_FIELD, requestIdParam, switchField, type AnsweredBy } from '../fields.ts';
import type { OperationModule } from '../operation.ts';
import type { Params } from '../params.ts';

// requestdetail: one request, with its request log and application log on demand.

function requestDetailParams(params: Params, by: AnsweredBy) {
  return {
    requestId: requestIdParam(params, by),
    withRequestLog: params.boolean('requestlog', false),
    withAppLog: params.boolean('applog', false),
  };
}

/** `12.3 KB`: base 1024, one decimal; plain bytes without decimals. */
export function formatFileSize(bytes: number | null): string {
  if (bytes === null) return '';
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** A vendor's date in our one form (its own clock), text that is no date as it came. */
const vendorDate = (value: TreeValue | undefined): string => normalDate(leafText(value)).date;

/** A count the upstream stated in digits; null when it stated none. */
function statedCount(value: TreeValue | undefined): number | null {
  const digits = leafText(value);
  return /^\d{1,15}$/.test(digits) ? Number(digits) : null;
}

/** The Log lines of an upstream's log element, as text. */
const logLines = (value: TreeValue | undefined) => elementsOf(elementOf(value).Log);

export const requestdetail: OperationModule = {
  embedded: (ctx, params) => {
    const { requestId, withRequestLog, withAppLog } = requestDetailParams(params, 'embedded');
    const request = getRequest(ctx.dbs.status, requestId);
    if (!request)
      throw new ApiError(404, ErrorCode.RequestNotFound, `Request ${requestId} does not exist.`);
    return requestDetailDocument({
      requestId: request.requestId,
      pipelineId: request.pipelineId,
      name: getPipeline(ctx.dbs.system, request.pipelineId)?.name ?? '',
      status: request.status,
      stage: request.stage,
      beginTime: toSeconds(request.beginTime),
      endTime: toSeconds(request.endTime),
      sensorTime: formatDuration(request.sensorMs),
      filterTime: formatDuration(request.filterMs),
      jointTime: formatDuration(request.jointMs),
      sensorFile: request.sensorFile ?? request.filename,
      fileSize: formatFileSize(request.fileSize),
      sensorRows: request.sensorRows,
      filterKept: request.filterKept,
      jointRows: request.jointRows,
      requestLog: withRequestLog ? readRequestLog(ctx.dbs.status, requestId) : undefined,
      appLog: withAppLog ? readAppLog(ctx.dbs.status, requestId) : undefined,
    });
  },

  upstream: async (upstream, params) => {
    const { requestId, withRequestLog, withAppLog } = requestDetailParams(params, 'upstream');
    const fields = {
      requestid: requestId,
      requestlog: String(withRequestLog),
      applog: String(withAppLog),
    };
    // An ended request's detail is read once for every browser (shared-details.ts).
    const tree = await (upstream.poller?.details.read(fields) ??
      upstream.call('requestdetail', fields));
    const d = elementOf(tree.RequestDetail);
    if (leafText(d.RequestId))
      await upstream.poller?.observed(leafText(d.RequestId), {
        status: leafText(d.Status),
        stage: leafText(d.Stage),
        endTime: vendorDate(d.EndTime),
        // Its file, for `q` (issue 25): any detail read through here tells it for free.
        sensorFile: leafText(d.SensorFile),
      });
    return requestDetailDocument({
      requestId: leafText(d.RequestId),
      pipelineId: leafText(d.PipelineId),
      name: leafText(d.Name),
      status: leafText(d.Status),
      stage: leafText(d.Stage),
      beginTime: vendorDate(d.BeginTime),
      endTime: vendorDate(d.EndTime),
      sensorTime: leafText(d.SensorTime),
      filterTime: leafText(d.FilterTime),
      jointTime: leafText(d.JointTime),
      sensorFile: leafText(d.SensorFile),
      fileSize: leafText(d.FileSize),
      sensorRows: statedCount(d.SensorRows),
      filterKept: statedCount(d.FilterKept),
      jointRows: statedCount(d.JointRows),
      requestLog: withRequestLog
        ? logLines(d.RequestLog).map((l) => ({
            date: leafText(l.Date),
            stage: leafText(l.Stage),
            event: leafText(l.Event),
            status: leafText(l.Status),
            actionOrder: Number(leafText(l.ActionOrder)) || 0,
            message: leafText(l.Message),
          }))
        : undefined,
      appLog: withAppLog
        ? logLines(d.AppLog).map((l) => ({
            index: Number(leafText(l.Index)) || 0,
            date: leafText(l.Date),
            type: leafText(l.Type),
            message: leafText(l.Message),
          }))
        : undefined,
    });
  },

  openapi: {
    summary: 'One request, with its request log and application log on demand',
    fields: [REQUEST_ID_FIELD, switchField('requestlog'), switchField('applog')],
    root: 'RequestDetail',
  },
  samples: [
    {
      label: 'requestdetail with both logs',
      phase: 'read',
      fields: (f) => ({ requestid: f.finished, requestlog: 'true', applog: 'true' }),
    },
    {
      label: 'requestdetail of a failure with both logs',
      phase: 'read',
      fields: (f) => ({ requestid: f.failed, requestlog: 'true', applog: 'true' }),
    },
    {
      label: 'requestdetail without logs',
      phase: 'read',
      fields: (f) => ({ requestid: f.finished }),
    },
    {
      label: '404/1202 unknown request',
      fails: true,
      fields: () => ({ requestid: 'pl_1-20000101_00-000001' }),
    },
  ],
};
