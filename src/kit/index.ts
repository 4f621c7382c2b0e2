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
  type FormatAndOptions,
  type RequestData,
  type RequestListQuery,
  type TablePaging,
  type TablesOrTableArgs,
} from './client.ts';
export { PipelineCalls } from './pipeline-calls.ts';
export { decodeOk } from './result.ts';
export {
  ManagementConsoleClient,
  type ApiKeyAnswer,
  type ApiSettings,
  type LoginAnswer,
  type LogoutAnswer,
  type SessionAnswer,
  type McLogin,
  type McSession,
  type RequestRangeQuery,
  type ServiceRole,
} from './management-console.ts';
export { FlowServiceClient } from './flow-service.ts';
export { type SessionClientOptions } from './session-client.ts';
export {
  Transport,
  encodeForm,
  type CallArgs,
  type CallOptions,
  type Method,
  type RawResponse,
  type TransportOptions,
} from './transport.ts';
export {
  EMBEDDED_ONLY,
  decodeCapabilities,
  decodeServices,
  type Capabilities,
  type CapabilitiesAnswer,
  type LearntListAnswer,
  type ServiceAnswer,
  type ServiceInfo,
  type ServicesAnswer,
} from './services.ts';
export {
  CONTRACT_STATUSES,
  CONTRACT_WORDS,
  STATUS_CLASSES,
  VENDOR_DEFAULT_STATUSES,
  VENDOR_DEFAULT_WORDS,
  decodeStatusSemantics,
  type LearnedRefusal,
  type StatusClass,
  type StatusClassWords,
  type StatusSemantics,
} from './status-semantics.ts';
export { failureWordsOf, type FailureSource } from './failure-words.ts';
export {
  AUDIT_CSV_FIELDS,
  AUDIT_FILTER_PARAMETERS,
  AUDIT_PAGING,
  AuditParameterError,
  auditFilterData,
  auditPageData,
  decodeAudit,
  readAuditFilter,
  readAuditPaging,
  type AuditAnswer,
  type AuditEntry,
  type AuditEntryAnswer,
  type AuditVia,
  type AuditFilter,
  type AuditPage,
  type AuditPageQuery,
} from './audit.ts';
export {
  decodeNotificationTest,
  decodeNotifications,
  type NotificationAnswer,
  type NotificationTestAnswer,
  type NotificationTestResult,
  type NotificationsAnswer,
  type NotificationsState,
} from './notifications.ts';
export {
  decodeNewToken,
  decodeTokens,
  REVOKED_BY,
  tokenRequestData,
  type NewToken,
  type PersonalToken,
  type RevokedBy,
  type RevokedToken,
  type RevokedTokenAnswer,
  type TokenRequest,
  type TokensAnswer,
} from './tokens.ts';
export {
  decodeOidcProvider,
  decodeOidcSession,
  type OidcProviderAnswer,
  type OidcSession,
  type OidcSessionAnswer,
} from './sign-on.ts';
export type { Learnt } from './liberal.ts';
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
export { runmodeState, type RunmodeState } from './runmode.ts';
export {
  FLEET_CLASSES,
  JUMP_RULES,
  decodeFleet,
  decodeTrends,
  median,
  trendJumps,
  type Fleet,
  type FleetAnswer,
  type FleetClass,
  type FleetCounts,
  type FleetDayState,
  type FleetJump,
  type FleetService,
  type FleetServiceAnswer,
  type FleetWord,
  type TrendPoint,
  type Trends,
  type TrendsAnswer,
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
  isTransientFailure,
  requestHasEnded,
  retriedAs,
  startRequest,
  type FollowOptions,
  type FollowedRequest,
  type RequestOperations,
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
export {
  elementOf,
  elementsOf,
  jsonToTree,
  leafText,
  xmlToTree,
  type TreeObject,
  type TreeValue,
} from './tree.ts';
export { htmlToTree } from './html.ts';
export * from './wire.ts';
export {
  ARG_TYPES,
  fitsArgType,
  isArgType,
  wholeValuePattern,
  type ArgRules,
  type ArgType,
} from './arg-types.ts';
