import {
  DAY_PATTERN,
  OPERATIONS,
  PIPELINE_ID_PATTERN,
  REQUEST_ID_PATTERN,
  type OperationName,
  type RootName,
} from '../../kit/wire.ts';
import type { Field } from './endpoints.ts';
import { type Schema } from './schemas.ts';

/*
 * Part C in the document: each operation's fields and the root of its answer. Typed as a
 * Record over OPERATIONS, so an operation added to src/kit/wire.ts fails the type check
 * until it has its entry here; the method, the formats and the error answers come from
 * wire.ts and the vocabulary.
 */

const pattern = (re: RegExp): Schema => ({ type: 'string', pattern: re.source });
const pipelineId = pattern(PIPELINE_ID_PATTERN);
const requestId = pattern(REQUEST_ID_PATTERN);
const trueOrFalse: Schema = { type: 'string', enum: ['true', 'false'] };
const whole = (minimum: number, maximum: number): Schema => ({
  type: 'string',
  pattern: '^\\d{1,10}$',
  description: `a whole number from ${minimum} to ${maximum}`,
  'x-minimum': minimum,
  'x-maximum': maximum,
});
const tableName: Schema = { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$' };

const browse = (what: string): PartCOperation => ({
  summary: `Tables of the ${what} database, or a page of one table`,
  fields: [
    { name: 'tablename', schema: tableName, description: 'the table to read; none lists tables' },
    { name: 'index', schema: whole(0, 1_000_000_000) },
    { name: 'pagesize', schema: whole(1, 10_000) },
  ],
  root: 'Result',
});

export interface PartCOperation {
  readonly summary: string;
  readonly fields: readonly Field[];
  readonly root: RootName;
}

export const PART_C: Readonly<Record<OperationName, PartCOperation>> = {
  list: { summary: 'The pipelines', fields: [], root: 'PipelineList' },
  inbox: {
    summary:
      'The inbox’s files that exec’s filename may name (no hidden, partial or nested ones), with size in bytes and modification time; a service behind the gateway that has no such list answers 404 (1204)',
    fields: [],
    root: 'Inbox',
  },
  exec: {
    summary: 'Run a pipeline on an inbox file (and the pipeline’s Args by name)',
    fields: [
      { name: 'pipelineid', schema: pipelineId, required: true },
      {
        name: 'filename',
        schema: { type: 'string', minLength: 1, maxLength: 255 },
        required: true,
        description: 'a plain file name inside the inbox folder',
      },
    ],
    root: 'ExecuteResponse',
  },
  requestlist: {
    summary: 'A day’s requests, newest first, filtered and paged',
    fields: [
      { name: 'id', schema: pipelineId, description: 'one pipeline only' },
      { name: 'date', schema: pattern(DAY_PATTERN), description: 'yyyymmdd; today by default' },
      { name: 'index', schema: whole(0, 1_000_000_000) },
      { name: 'pagesize', schema: whole(1, 1000) },
      { name: 'status', schema: { type: 'string', maxLength: 400 }, description: 'Error,Stop' },
      { name: 'q', schema: { type: 'string', maxLength: 200 }, description: 'a substring' },
      { name: 'since', schema: pattern(/^\d{14}$/), description: 'yyyymmddhhmmss' },
    ],
    root: 'RequestList',
  },
  requestdetail: {
    summary: 'One request, with its request log and application log on demand',
    fields: [
      { name: 'requestid', schema: requestId, required: true },
      { name: 'requestlog', schema: trueOrFalse },
      { name: 'applog', schema: trueOrFalse },
    ],
    root: 'RequestDetail',
  },
  requeststats: {
    summary: 'A day’s exact request counts per pipeline, hour and status (contract 8)',
    fields: [
      { name: 'date', schema: pattern(DAY_PATTERN), description: 'yyyymmdd; today by default' },
      { name: 'id', schema: pipelineId, description: 'one pipeline only' },
    ],
    root: 'RequestStats',
  },
  requestretry: {
    summary: 'Run a request that ended in Error or Stop again',
    fields: [{ name: 'requestid', schema: requestId, required: true }],
    root: 'ExecuteResponse',
  },
  requestcancel: {
    summary: 'Stop a waiting or running request',
    fields: [{ name: 'requestid', schema: requestId, required: true }],
    root: 'ExecuteResponse',
  },
  resume: {
    summary: 'Let a pipeline run its requests',
    fields: [{ name: 'pipelineid', schema: pipelineId, required: true }],
    root: 'ExecuteResponse',
  },
  suspend: {
    summary: 'Hold a pipeline’s new requests in Wait',
    fields: [{ name: 'pipelineid', schema: pipelineId, required: true }],
    root: 'ExecuteResponse',
  },
  version: { summary: 'The service’s version', fields: [], root: 'Response' },
  systemdb: browse('system'),
  statusdb: browse('status'),
  actiondb: browse('action'),
  pipelinecache: {
    summary: 'Clear a pipeline’s cached stage outputs',
    fields: [
      { name: 'pipelineid', schema: pipelineId, required: true },
      { name: 'sensor', schema: trueOrFalse },
      { name: 'filter', schema: trueOrFalse },
      { name: 'joint', schema: trueOrFalse },
    ],
    root: 'ExecuteResponse',
  },
  deletetable: {
    summary: 'Delete every row of an action table',
    fields: [{ name: 'table', schema: tableName, required: true }],
    root: 'ExecuteResponse',
  },
  droptable: {
    summary: 'Drop an action table',
    fields: [{ name: 'table', schema: tableName, required: true }],
    root: 'ExecuteResponse',
  },
};

export const partCMethod = (operation: OperationName): string => OPERATIONS[operation];
