/**
 * Client kit of the pipeline service: Part C (pipeline API) and the session APIs of
 * Parts A and B. Version 0.0.1, BSD licence. Runs wherever `fetch` does.
 *
 * @example
 * import { PipelineClient } from 'pipeline-kit'; // in this repository: './kit/index.ts'
 * const client = new PipelineClient({ apiKey: 'KEY', host: '127.0.0.1', port: 25080 });
 * console.log(await client.version());
 */
/** The kit's version: its package.json's (a test holds them together), pipelinectl --version. */
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
export {
  FLEET_CLASSES,
  JUMP_RULES,
  decodeFleet,
  decodeTrends,
  median,
  trendJumps,
  type Fleet,
  type FleetClass,
  type FleetCounts,
  type FleetDayState,
  type FleetJump,
  type FleetService,
  type FleetWord,
  type TrendPoint,
  type Trends,
} from './fleet.ts';
export {
  UPSTREAM_CAUSE_KINDS,
  decodeUpstreamCause,
  upstreamSentence,
  type UpstreamCause,
  type UpstreamCauseKind,
  type UpstreamFailure,
} from './upstream-failure.ts';
export {
  decodeAttempts,
  decodeRequestRange,
  type AttemptAction,
  type AttemptActor,
  type AttemptChange,
  type AttemptEvidence,
  type AttemptLogLine,
  type RangeDay,
  type RangeRequest,
  type RequestAttempt,
  type RequestAttempts,
  type RequestRange,
} from './attempts.ts';
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
