import {
  ErrorCode,
  PIPELINE_ID_PATTERN,
  PIPELINE_ID_SHAPE,
  REQUEST_ID_PATTERN,
  REQUEST_ID_SHAPE,
} from '../../kit/wire.ts';
import type { ServiceContext } from '../context.ts';
import { getPipeline, type PipelineRow } from '../db/system/pipelines.ts';
import { ApiError, missingParameter } from '../errors.ts';
import type { Field, Schema } from './operation.ts';
import type { Params } from './params.ts';

// Parameters that several operations share, each read one way (for the embedded engine and
// an upstream alike) and described once for the OpenAPI document.

export const pipelineIdParam = (params: Params, name = 'pipelineid'): string =>
  params.matching(name, PIPELINE_ID_PATTERN, PIPELINE_ID_SHAPE, true);

export const requestIdParam = (params: Params): string =>
  params.matching('requestid', REQUEST_ID_PATTERN, REQUEST_ID_SHAPE, true);

export const pipelineNotFound = (id: string): ApiError =>
  new ApiError(404, ErrorCode.PipelineNotFound, `Pipeline ${id} does not exist.`);

/** A pipeline of the embedded engine by its id; 404 when there is none. */
export function knownPipeline(ctx: ServiceContext, id: string): PipelineRow {
  const pipeline = getPipeline(ctx.dbs.system, id);
  if (!pipeline) throw pipelineNotFound(id);
  return pipeline;
}

/** `index` and `pagesize` of a paged answer. */
export function pageParams(params: Params, maxPage: number): { pageSize: number; index: number } {
  const pageSize = params.integer('pagesize', 100, 1, maxPage);
  const index = params.integer('index', 0, 0, 1_000_000_000);
  return { pageSize, index };
}

/** A table name that must be given (`table` of deletetable and droptable). */
export function requiredTableParam(params: Params, name: string): string {
  const value = params.optional(name, 128);
  if (value === undefined) throw missingParameter(name);
  return value;
}

/** A plain file name inside the inbox: no separators, no `..`, no control characters. */
// eslint-disable-next-line no-control-regex
export const PLAIN_FILE_NAME = /^(?!.*\.\.)[^/\\\u0000-\u001f\u007f]{1,255}$/;

/** Whether exec's `filename` may name this file: the rule exec applies, and no blank name. */
export function isPlainFileName(name: string): boolean {
  return PLAIN_FILE_NAME.test(name) && name !== '.' && name.trim() !== '';
}

/** The form of a table name the embedded engine accepts. */
export const TABLE_NAME_FORM = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

// The fields in the OpenAPI document.

export const pattern = (re: RegExp): Schema => ({ type: 'string', pattern: re.source });
export const pipelineIdSchema = pattern(PIPELINE_ID_PATTERN);
export const requestIdSchema = pattern(REQUEST_ID_PATTERN);
export const trueOrFalse: Schema = { type: 'string', enum: ['true', 'false'] };
/** An optional switch of an operation, `true` or `false`. */
export const switchField = (name: string): Field => ({ name, schema: trueOrFalse });
export const whole = (minimum: number, maximum: number): Schema => ({
  type: 'string',
  pattern: '^\\d{1,10}$',
  description: `a whole number from ${minimum} to ${maximum}`,
  'x-minimum': minimum,
  'x-maximum': maximum,
});
export const tableNameSchema: Schema = { type: 'string', pattern: TABLE_NAME_FORM.source };

export const PIPELINE_ID_FIELD: Field = {
  name: 'pipelineid',
  schema: pipelineIdSchema,
  required: true,
};
export const REQUEST_ID_FIELD: Field = {
  name: 'requestid',
  schema: requestIdSchema,
  required: true,
};
