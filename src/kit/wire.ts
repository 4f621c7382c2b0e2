/**
 * Wire vocabulary of the pipeline API (Part C): element names, formats, codes, id shapes.
 * The service imports these so that what it writes and what the kit reads cannot drift.
 */
import { ELEMENTS, type ElementName, type ElementSpec } from './vocabulary.ts';

export * from './vocabulary.ts';

/** Response types accepted as the last path segment of `/pipelineapi/<api>/<type>`. */
export const RESPONSE_TYPES = ['xml', 'json', 'htm'] as const;
export type ResponseType = (typeof RESPONSE_TYPES)[number];

export const CONTENT_TYPES: Readonly<Record<ResponseType, string>> = {
  xml: 'text/xml; charset=UTF-8',
  json: 'text/javascript; charset=UTF-8',
  htm: 'text/html; charset=UTF-8',
};

/**
 * Elements that may repeat: always arrays in JSON, even of one or none. Read from the
 * vocabulary (ELEMENTS), where each element says whether it repeats.
 */
export const REPEATED_ELEMENTS: readonly ElementName[] = (
  Object.keys(ELEMENTS) as ElementName[]
).filter((name) => (ELEMENTS[name] as ElementSpec).repeated === true);

/** Part C operations with their HTTP method. */
export const OPERATIONS = {
  list: 'GET',
  exec: 'POST',
  requestlist: 'GET',
  requestdetail: 'GET',
  /** A day's exact counts per pipeline, hour and status (contract section 8, extension). */
  requeststats: 'GET',
  /** The inbox's files that exec may name (contract section 10, extension). */
  inbox: 'GET',
  requestretry: 'PUT',
  requestcancel: 'DELETE',
  resume: 'PUT',
  suspend: 'PUT',
  version: 'GET',
  systemdb: 'GET',
  statusdb: 'GET',
  actiondb: 'GET',
  pipelinecache: 'DELETE',
  deletetable: 'DELETE',
  droptable: 'DELETE',
} as const;
export type OperationName = keyof typeof OPERATIONS;

/** Error codes of Part C (contract section 3). */
export const ErrorCode = {
  MissingParameter: 1001,
  BadParameter: 1002,
  UnknownResponseType: 1003,
  ApiDisabled: 1101,
  NoCredentials: 1102,
  BadCredentials: 1103,
  RoleForbidden: 1104,
  PipelineNotFound: 1201,
  RequestNotFound: 1202,
  TableNotFound: 1203,
  UnknownApi: 1204,
  StateConflict: 1301,
  MethodNotAllowed: 1401,
  BodyTooLarge: 1501,
  Internal: 5000,
  /** A gateway's pipeline service answered with a failure or with something unreadable. */
  UpstreamFailed: 5002,
  /** The service cannot write its data (a full disk, say); nothing was changed. */
  Unavailable: 5003,
  /** A gateway's pipeline service did not answer in time. */
  UpstreamTimeout: 5004,
} as const;
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Request states (contract section 5). */
/** An ExecuteResponse's Status and Message on success (interfaces.md): they say no more than "done". */
export const EXECUTE_SUCCESS = { Status: 'OK', Message: 'Success' } as const;

export const REQUEST_STATUSES = ['Wait', 'Start', 'Process', 'Finish', 'Error', 'Stop'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];
export const TERMINAL_STATUSES: readonly RequestStatus[] = ['Finish', 'Error', 'Stop'];
export const RETRYABLE_STATUSES: readonly RequestStatus[] = ['Error', 'Stop'];
export const CANCELLABLE_STATUSES: readonly RequestStatus[] = ['Wait', 'Start', 'Process'];

export const REQUEST_STAGES = ['Sensor', 'Filter', 'Joint', 'Complete'] as const;
export type RequestStage = (typeof REQUEST_STAGES)[number];

export const ROLES = ['administrator', 'developer', 'operator', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** Roles from the least to the most: each may do all that the ones before it may. */
export const ROLE_ORDER: readonly Role[] = ['viewer', 'operator', 'developer', 'administrator'];

/** Whether `role` is `least` or above it. */
export function roleAtLeast(role: Role, least: Role): boolean {
  return ROLE_ORDER.indexOf(role) >= ROLE_ORDER.indexOf(least);
}

/** The higher of two roles. */
export function higherRole(a: Role, b: Role): Role {
  return roleAtLeast(a, b) ? a : b;
}

const READ_OPERATIONS = (Object.keys(OPERATIONS) as OperationName[]).filter(
  (op) => OPERATIONS[op] === 'GET',
);
const OPERATOR_OPERATIONS: readonly OperationName[] = [
  ...READ_OPERATIONS,
  'resume',
  'suspend',
  'requestretry',
  'requestcancel',
];
const DEVELOPER_OPERATIONS: readonly OperationName[] = [
  ...OPERATOR_OPERATIONS,
  'exec',
  'pipelinecache',
];

/**
 * Part C operations each role may call with a management console session (contract
 * sections 4 and 12): a viewer reads what an operator reads and changes nothing. The API key
 * may call all of them.
 */
export const ROLE_OPERATIONS: Readonly<Record<Role, ReadonlySet<OperationName>>> = {
  viewer: new Set(READ_OPERATIONS),
  operator: new Set(OPERATOR_OPERATIONS),
  developer: new Set(DEVELOPER_OPERATIONS),
  administrator: new Set(Object.keys(OPERATIONS) as OperationName[]),
};

/** The least role that may call an operation. @example roleNeeded('requestretry') // 'operator' */
export function roleNeeded(operation: OperationName): Role {
  return ROLE_ORDER.find((role) => ROLE_OPERATIONS[role].has(operation)) ?? 'administrator';
}

/** Header carrying the API key. */
export const API_KEY_HEADER = 'X-Pipelinewebapi';
/** Header carrying a management console session id. */
export const MC_SESSION_HEADER = 'X-As-SessionId';
/** Header carrying a flow service session id. */
export const FS_SESSION_HEADER = 'X-Fs-SessionId';
/** Cookie set after a key-authenticated call. */
export const SESSION_COOKIE = 'SESSIONID';

/** The databases a client may browse (`<name>db` operations). */
export const DATABASE_NAMES = ['system', 'status', 'action'] as const;
export type DatabaseName = (typeof DATABASE_NAMES)[number];

/** The operation that browses a database: `status` → `statusdb`. */
export function databaseOperation(database: DatabaseName): `${DatabaseName}db` & OperationName {
  return `${database}db`;
}

// The id and name shapes, built from the same pieces so that they cannot drift apart.
const PIPELINE_ID = String.raw`pl_\d{1,9}`;
const DAY = String.raw`\d{8}`;

/** Shape of a pipeline id: `pl_<number>`. */
export const PIPELINE_ID_PATTERN = new RegExp(`^${PIPELINE_ID}$`);
export const PIPELINE_ID_SHAPE = 'pl_<number>';
/**
 * Shape of a RequestId: `<pipeline id>-<yyyymmdd>_<hh>-<6-digit serial>`; the groups are
 * the pipeline id, the day, the hour and the serial.
 */
export const REQUEST_ID_PATTERN = new RegExp(`^(${PIPELINE_ID})-(${DAY})_(\\d{2})-(\\d{6})$`);
export const REQUEST_ID_SHAPE = '<pipeline id>-<yyyymmdd>_<hh>-<6-digit serial>';
/** Shape of a day as the API writes it (`date` of requestlist, status tables): yyyymmdd. */
export const DAY_PATTERN = new RegExp(`^${DAY}$`);
export const DAY_SHAPE = 'yyyymmdd';
/** Shape of a status table's name, one per day: `STATUS<yyyymmdd>`; the group is the day. */
export const STATUS_TABLE_PATTERN = new RegExp(`^STATUS(${DAY})$`);

/** The status table of a day. @example statusTableName('20261121') // 'STATUS20261121' */
export function statusTableName(day: string): string {
  return `STATUS${day}`;
}

/** The day of a status table, or undefined for another name. @example dayOfStatusTable('STATUS20261121') // '20261121' */
export function dayOfStatusTable(table: string): string | undefined {
  return STATUS_TABLE_PATTERN.exec(table)?.[1];
}

/** The day a RequestId belongs to. @example dayOfRequestId('pl_1-20261121_09-000001') // '20261121' */
export function dayOfRequestId(requestId: string): string | undefined {
  return REQUEST_ID_PATTERN.exec(requestId)?.[2];
}
