import {
  ErrorCode,
  PIPELINE_ID_PATTERN,
  PIPELINE_ID_SHAPE,
  REQUEST_ID_PATTERN,
  REQUEST_ID_SHAPE,
} from '../../kit/wire.ts';
import type { ServiceContext } from '../context.ts';
import { getPipeline, type PipelineRow } from '../db/system/pipelines.ts';
import { notText } from '../db/text.ts';
import { ApiError, badParameter, missingParameter } from '../errors.ts';
import type { Field, Schema } from './operation.ts';
import type { Params } from './params.ts';

// Parameters that several operations share, each read in one place and described once for
// the OpenAPI document.

/**
 * Who answers a call, and so whose ids and names its parameters carry: the embedded engine,
 * whose have our contract's shapes (`pl_<number>`, ...), or an upstream, whose are its own.
 * interfaces.md shows one shape but promises none, so an upstream's values are opaque:
 * passed on exactly as they came, refused only when missing, too long or not one line of
 * text, never for their shape. A day (`date`) is yyyymmdd either way: interfaces.md's form,
 * and the request index's, which answers an upstream's days.
 */
export type AnsweredBy = 'embedded' | 'upstream';

/**
 * An id or a name as given, of any shape (an upstream's are its own): Params refuses
 * what is too long or holds a control character other than tab and line breaks (its free
 * text may span lines); an id or a name is one line, so those are refused here too, naming
 * the parameter.
 */
export function oneLineParam(params: Params, name: string, maxLength = 1024): string | undefined {
  const value = params.optional(name, maxLength);
  const why = value === undefined ? undefined : notText(value);
  if (why !== undefined) throw badParameter(name, why);
  return value;
}

function requiredOneLineParam(params: Params, name: string, maxLength = 1024): string {
  const value = oneLineParam(params, name, maxLength);
  if (value === undefined) throw missingParameter(name);
  return value;
}

/** A pipeline id that must be given: `pipelineid` of exec, resume, suspend, pipelinecache. */
export const pipelineIdParam = (params: Params, by: AnsweredBy, name = 'pipelineid'): string =>
  by === 'embedded'
    ? params.matching(name, PIPELINE_ID_PATTERN, PIPELINE_ID_SHAPE, true)
    : requiredOneLineParam(params, name);

/** A pipeline id that may be left out: `id` of requestlist, requeststats and bulk calls. */
export const optionalPipelineIdParam = (params: Params, by: AnsweredBy): string | undefined =>
  by === 'embedded'
    ? params.matching('id', PIPELINE_ID_PATTERN, PIPELINE_ID_SHAPE, false)
    : oneLineParam(params, 'id');

/** `requestid` of requestdetail, requestretry and requestcancel. */
export const requestIdParam = (params: Params, by: AnsweredBy): string =>
  by === 'embedded'
    ? params.matching('requestid', REQUEST_ID_PATTERN, REQUEST_ID_SHAPE, true)
    : requiredOneLineParam(params, 'requestid');

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

/**
 * A table name that must be given (`table` of deletetable and droptable), one line; the
 * embedded engine then holds it to TABLE_NAME_FORM, an upstream's names are its own.
 */
export const requiredTableParam = (params: Params, name: string): string =>
  requiredOneLineParam(params, name, 128);

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
/**
 * What the OpenAPI document says of a value whose shape binds the embedded engine alone: a
 * pattern that the gateway does not enforce would otherwise read as a promise it breaks.
 */
const UPSTREAM_VALUES_ARE_OPAQUE =
  'This shape binds the embedded service. Behind the gateway a service’s own ids and table names are passed on as given, whatever their shape.';
/** A value of this shape on the embedded engine, of any on an upstream (AnsweredBy). */
const embeddedShape = (re: RegExp): Schema => ({
  type: 'string',
  pattern: re.source,
  description: UPSTREAM_VALUES_ARE_OPAQUE,
});
export const pipelineIdSchema = embeddedShape(PIPELINE_ID_PATTERN);
export const requestIdSchema = embeddedShape(REQUEST_ID_PATTERN);
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
export const tableNameSchema: Schema = embeddedShape(TABLE_NAME_FORM);

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
