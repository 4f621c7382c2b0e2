// The decoders of Part C's answers on pipelines and requests (list, requestlist,
// requestdetail, exec and the other changes, inbox, version). The database answers are in
// table-records.ts, a day's counts in request-stats.ts; all read through tree-fields.ts.
import type { TreeObject } from './tree.ts';
import {
  decodePageInfo,
  elements,
  list,
  named,
  number,
  object,
  optionalNumber,
  rootOf,
  text,
  type PageInfo,
} from './tree-fields.ts';
import type { RequestStage, RequestStatus } from './wire.ts';

export type { PageInfo } from './tree-fields.ts';
export {
  decodeTableList,
  decodeTablePage,
  type ColumnInfo,
  type TableList,
  type TablePage,
  type TablePageInfo,
} from './table-records.ts';
export {
  decodeRequestStats,
  type HourStats,
  type PipelineStats,
  type RequestStats,
  type StatusCount,
} from './request-stats.ts';

/** A date as the service wrote it, with its parts read out. */
export interface ServiceDate {
  /** Exactly the text the service sent. */
  readonly text: string;
  /** `YYYY-MM-DDThh:mm:ss[.mmm]` in the service's time zone. */
  readonly local: string;
  /** The zone abbreviation when the text has one (`UTC`, `GMT+9`, `JST`). */
  readonly zone: string | null;
  /** The instant, when the zone makes it certain (UTC, GMT, GMT±h[:mm]); else null. */
  readonly epochMs: number | null;
}

const DATE_SHAPE =
  /^(\d{4})[-/](\d{2})[-/](\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{3}))?(?: (\S+))?$/;

/**
 * Reads the service's date shapes: `YYYY-MM-DDThh:mm:ss.mmm ZZZ`, `YYYY-MM-DD hh:mm:ss`,
 * `YYYY/MM/DD hh:mm:ss`. Returns null for an empty or unknown text.
 *
 * @example
 * parseServiceDate('2026-11-21T09:00:00.000 UTC')?.epochMs // 1795251600000
 */
export function parseServiceDate(text: string): ServiceDate | null {
  const m = DATE_SHAPE.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, ms, zone] = m;
  const local = `${y}-${mo}-${d}T${h}:${mi}:${s}${ms ? `.${ms}` : ''}`;
  let epochMs: number | null = null;
  const offset = zone ? /^(?:UTC|GMT)(?:([+-])(\d{1,2})(?::?(\d{2}))?)?$/.exec(zone) : null;
  if (offset) {
    const sign = offset[1] === '-' ? -1 : 1;
    const minutes = offset[2] ? sign * (Number(offset[2]) * 60 + Number(offset[3] ?? 0)) : 0;
    epochMs = Date.parse(`${local}Z`) - minutes * 60_000;
  }
  return { text, local, zone: zone ?? null, epochMs };
}

/** The rows per stage a request detail states; none of them when it states none. */
function rowCounts(d: TreeObject): {
  sensorRows?: number;
  filterKept?: number;
  jointRows?: number;
} {
  const sensorRows = optionalNumber(d, 'SensorRows');
  const filterKept = optionalNumber(d, 'FilterKept');
  const jointRows = optionalNumber(d, 'JointRows');
  return {
    ...(sensorRows !== undefined ? { sensorRows } : {}),
    ...(filterKept !== undefined ? { filterKept } : {}),
    ...(jointRows !== undefined ? { jointRows } : {}),
  };
}

export interface PipelineArg {
  readonly name: string;
  /** The default value. */
  readonly value: string;
  /** Declared rules (contract section 10); absent when the definition declares none. */
  readonly type?: string;
  readonly required?: boolean;
  readonly pattern?: string;
  readonly choices?: readonly string[];
}

export interface Pipeline {
  readonly id: string;
  readonly name: string;
  readonly runmode: string;
  readonly createdate: string;
  readonly updatedate: string;
  readonly created: ServiceDate | null;
  readonly updated: ServiceDate | null;
  readonly description: string;
  /** Parameters with their defaults; empty when the pipeline has none (or in HTML). */
  readonly args: readonly PipelineArg[];
}

export function decodePipelineList(tree: TreeObject): Pipeline[] {
  const root = rootOf(tree, 'PipelineList');
  return elements(root, 'PipeLine').map((p) => {
    const args = p.Args === undefined ? [] : elements(object(p.Args, 'Args'), 'Item');
    return {
      ...named(p, text, 'Id', 'Name', 'Runmode', 'Createdate', 'Updatedate'),
      created: parseServiceDate(text(p, 'Createdate')),
      updated: parseServiceDate(text(p, 'Updatedate')),
      description: text(p, 'Description'),
      args: args.map((item) => {
        const choices = list(item.Choice).map((c) => (typeof c === 'string' ? c : String(c)));
        return {
          ...named(item, text, 'Name', 'Value'),
          ...(item.Type !== undefined ? { type: text(item, 'Type') } : {}),
          ...(item.Required !== undefined
            ? { required: item.Required === true || item.Required === 'true' }
            : {}),
          ...(item.Pattern !== undefined ? { pattern: text(item, 'Pattern') } : {}),
          ...(item.Choice !== undefined ? { choices } : {}),
        };
      }),
    };
  });
}

export interface RequestSummary {
  readonly requestId: string;
  readonly pipelineId: string;
  readonly name: string;
  readonly status: RequestStatus | string;
  readonly stage: RequestStage | string;
  readonly beginDate: string;
  readonly begin: ServiceDate | null;
}

export interface RequestListInfo extends PageInfo {
  readonly error: boolean;
  readonly date: string;
  readonly id: string;
}

export interface RequestList {
  readonly requests: readonly RequestSummary[];
  readonly info: RequestListInfo;
}

export function decodeRequestList(tree: TreeObject): RequestList {
  const root = rootOf(tree, 'RequestList');
  const info = object(root.Info, 'Info');
  return {
    requests: elements(root, 'Request').map((r) => ({
      ...named(r, text, 'RequestId', 'PipelineId', 'Name', 'Status', 'Stage', 'BeginDate'),
      begin: parseServiceDate(text(r, 'BeginDate')),
    })),
    info: {
      ...decodePageInfo(info),
      error: info.Error === true || info.Error === 'true',
      ...named(info, text, 'Date', 'Id'),
    },
  };
}

export interface RequestLogEntry {
  readonly date: string;
  readonly stage: string;
  readonly event: string;
  readonly status: string;
  readonly actionOrder: number;
  readonly message: string;
}

export interface AppLogEntry {
  readonly index: number;
  readonly date: string;
  readonly type: string;
  readonly message: string;
}

export interface RequestDetail {
  readonly requestId: string;
  readonly pipelineId: string;
  readonly name: string;
  readonly status: RequestStatus | string;
  readonly stage: RequestStage | string;
  readonly beginTime: string;
  readonly endTime: string;
  readonly begin: ServiceDate | null;
  readonly end: ServiceDate | null;
  readonly sensorTime: string;
  readonly filterTime: string;
  readonly jointTime: string;
  readonly sensorFile: string;
  readonly fileSize: string;
  /** Rows read by the Sensor, kept by the Filter, written by the Joint (contract section 10); undefined while unknown or from a service that does not say. */
  readonly sensorRows?: number;
  readonly filterKept?: number;
  readonly jointRows?: number;
  /** Present when asked for with requestLog. */
  readonly requestLog: readonly RequestLogEntry[] | undefined;
  /** Present when asked for with appLog. */
  readonly appLog: readonly AppLogEntry[] | undefined;
}

export function decodeRequestDetail(tree: TreeObject): RequestDetail {
  const d = rootOf(tree, 'RequestDetail');
  const logs = (name: string): TreeObject[] | undefined =>
    d[name] === undefined ? undefined : elements(object(d[name], name), 'Log');
  return {
    ...named(d, text, 'RequestId', 'PipelineId', 'Name', 'Status', 'Stage', 'BeginTime', 'EndTime'),
    begin: parseServiceDate(text(d, 'BeginTime')),
    end: parseServiceDate(text(d, 'EndTime')),
    ...named(d, text, 'SensorTime', 'FilterTime', 'JointTime', 'SensorFile', 'FileSize'),
    ...rowCounts(d),
    requestLog: logs('RequestLog')?.map((l) => ({
      ...named(l, text, 'Date', 'Stage', 'Event', 'Status'),
      actionOrder: number(l, 'ActionOrder'),
      message: text(l, 'Message'),
    })),
    appLog: logs('AppLog')?.map((l) => ({
      index: number(l, 'Index'),
      ...named(l, text, 'Date', 'Type', 'Message'),
    })),
  };
}

export interface ExecuteResult {
  readonly status: string;
  readonly message: string;
  /** The new request of an exec (an extension of the embedded service). */
  readonly requestId: string | undefined;
  /** Rows removed by deletetable, or held by a dropped table. */
  readonly rowCount: number | undefined;
  readonly code: number | undefined;
}

export function decodeExecuteResponse(tree: TreeObject): ExecuteResult {
  const r = rootOf(tree, 'ExecuteResponse');
  return {
    ...named(r, text, 'Status', 'Message'),
    requestId: r.RequestId === undefined ? undefined : text(r, 'RequestId'),
    rowCount: optionalNumber(r, 'RowCount'),
    code: optionalNumber(r, 'Code'),
  };
}

/** A file of the inbox that exec may name (contract section 10). */
export interface InboxFile {
  readonly name: string;
  /** Bytes. */
  readonly size: number;
  /** `yyyy-mm-dd hh:mm:ss` in the service's zone. */
  readonly modified: string;
}

export function decodeInbox(tree: TreeObject): InboxFile[] {
  return elements(rootOf(tree, 'Inbox'), 'File').map((f) => ({
    ...named(f, text, 'Name'),
    size: number(f, 'Size'),
    modified: text(f, 'Modified'),
  }));
}

export function decodeVersion(tree: TreeObject): string {
  return text(rootOf(tree, 'Response'), 'Version');
}
