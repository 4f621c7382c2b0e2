import { ROLES } from '../../kit/wire.ts';
import type { Field } from '../pipelineapi/operation.ts';
import { exactly, partAError, partASuccess, text, wholeNumber, type Schema } from './schemas.ts';

// What every endpoint entry of the document is made of (endpoints.ts and its neighbours):
// the entry's shape, the answers of Parts A and B, and schemas several Parts share.

export type { Field };

export interface Answer {
  readonly description: string;
  /** Media type → schema of the body. */
  readonly content: Readonly<Record<string, Schema>>;
}

export interface Endpoint {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** OpenAPI path, `{name}` for a path parameter. */
  readonly path: string;
  readonly tag: string;
  readonly summary: string;
  readonly fields?: readonly Field[];
  /** Segments of the path (`{name}`), each required. */
  readonly pathFields?: readonly Field[];
  /** Names of security schemes, any one of which is enough; none: open. */
  readonly security?: readonly string[];
  readonly answers: Readonly<Record<string, Answer>>;
}

const PART_A_JSON = 'application/json';
const PART_B_XML = 'text/xml';

/** A Part A answer in its JSON envelope: success with `data`, or the error envelope. */
export const a = (description: string, data: Schema): Answer => ({
  description,
  content: { [PART_A_JSON]: partASuccess(data) },
});
export const aError = (description: string): Answer => ({
  description,
  content: { [PART_A_JSON]: partAError },
});
export const b = (description: string): Answer => ({
  description,
  content: { [PART_B_XML]: { type: 'string', description: '<result><status>…' } },
});

export const minutes: Schema = { type: 'string', pattern: '^\\d{1,4}$', description: '1 to 1440' };
export const roles: Schema = { type: 'array', items: { enum: [...ROLES] } };
export const role: Schema = { enum: [...ROLES] };

export const signedIn = {
  '401': aError('No live session (3001)'),
  '403': aError('Not an administrator (3003)'),
};
export const badInput = { '400': aError('A missing or malformed parameter, named') };
export const unavailable = { '503': aError('The data cannot be written (a full disk)') };

const httpStatus: Schema = { type: 'integer', minimum: 100, maximum: 599 };
const untrusted = (description: string): Schema => ({ ...text, description });
const serviceWords = untrusted('the service’s own words (untrusted), or empty');

/**
 * Why the gateway got no usable answer from a service, in data (kit/upstream-failure.ts):
 * the cause of the English sentence beside it, one shape per kind; null when that message
 * is the service's own words, or nothing failed.
 */
export const upstreamCause: Schema = {
  anyOf: [
    exactly({
      kind: { const: 'unreachable' },
      error: untrusted('the connection’s code (ECONNREFUSED, ENOTFOUND…) or words'),
    }),
    exactly({ kind: { const: 'timeout' }, seconds: { type: 'number', minimum: 0 } }),
    exactly({ kind: { const: 'midway' } }),
    exactly({
      kind: { const: 'failed' },
      httpStatus: { ...httpStatus, type: ['integer', 'null'], description: 'null: a SystemError' },
      words: serviceWords,
    }),
    exactly({ kind: { const: 'keyRefused' }, httpStatus, words: serviceWords }),
    exactly({ kind: { const: 'busy' }, httpStatus, attempts: wholeNumber, words: serviceWords }),
    exactly({ kind: { const: 'redirect' }, httpStatus, location: untrusted('its Location') }),
    exactly({
      kind: { const: 'tooLarge' },
      mebibytes: { type: 'number', minimum: 0 },
      declared: { type: 'boolean' },
      boundMebibytes: { type: 'number', minimum: 0 },
    }),
    exactly({
      kind: { const: 'valueTooLarge' },
      element: untrusted('the element the value belongs to, as the service named it'),
      characters: wholeNumber,
      boundCharacters: wholeNumber,
    }),
    exactly({ kind: { const: 'unreadableXml' }, detail: untrusted('the XML parser’s words') }),
    exactly({ kind: { const: 'notXml' }, start: untrusted('how its answer began') }),
    exactly({
      kind: { const: 'refused' },
      httpStatus: { ...httpStatus, type: ['integer', 'null'], description: 'null: in its answer' },
    }),
    { type: 'null' },
  ],
};

/** The Part C code of a failure (5002 failed, 5004 timed out…), null when none applies. */
export const failureCode: Schema = { type: ['integer', 'null'] };
