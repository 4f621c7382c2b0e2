/**
 * Client kit of the pipeline service: Part C (pipeline API) and the session APIs of
 * Parts A and B. Version 0.0.1, BSD licence. Runs wherever `fetch` does.
 *
 * @example
 * import { PipelineClient } from './kit';
 * const client = new PipelineClient({ apiKey: 'KEY', host: '127.0.0.1', port: 25080 });
 * console.log(await client.version());
 */
export const KIT_VERSION = '0.0.1';

export {
  PipelineClient,
  PipelineResult,
  ResultFormat,
  ResultStatus,
  type ClientOptions,
  type Credentials,
  type FetchLike,
  type Format,
  type RequestData,
} from './client.ts';
export {
  FlowServiceClient,
  ManagementConsoleClient,
  type ApiSettings,
  type McLogin,
  type McSession,
  type ServiceRole,
} from './sessions.ts';
export {
  Transport,
  encodeForm,
  type Method,
  type RawResponse,
  type TransportOptions,
} from './transport.ts';
export { HttpError, NetworkError, ParseError, PipelineKitError, TimeoutError } from './errors.ts';
export {
  decodeRequestStats,
  parseServiceDate,
  type AppLogEntry,
  type ColumnInfo,
  type ExecuteResult,
  type PageInfo,
  type Pipeline,
  type PipelineArg,
  type RequestDetail,
  type RequestList,
  type RequestListInfo,
  type RequestLogEntry,
  type RequestStats,
  type RequestSummary,
  type PipelineStats,
  type HourStats,
  type StatusCount,
  type ServiceDate,
  type TableList,
  type TablePage,
  type InboxFile,
} from './records.ts';
export { BulkClient } from './bulk.ts';
export type {
  BulkAction,
  BulkItem,
  BulkJob,
  BulkJobNow,
  BulkJobState,
  BulkOutcome,
  BulkPreview,
  BulkSelection,
} from './bulk.ts';
export {
  END_STATUSES,
  OK_STATUSES,
  followRequest,
  requestHasEnded,
  startRequest,
  type FollowOptions,
  type FollowedRequest,
  type StartOptions,
  type StartedRequest,
} from './follow.ts';
export {
  SNIFF_BYTES,
  chooseCharset,
  contentTypeCharset,
  declaredCharset,
  decodeAnswer,
  knownCharset,
  type ChosenCharset,
} from './charset.ts';
export { jsonToTree, xmlToTree, type TreeObject, type TreeValue } from './tree.ts';
export { htmlToTree } from './html.ts';
export * from './wire.ts';
export { ARG_TYPES, fitsArgType, isArgType, wholeValuePattern, type ArgType } from './arg-types.ts';
