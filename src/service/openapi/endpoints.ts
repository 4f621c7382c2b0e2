import type { Field } from '../pipelineapi/operation.ts';
import { exactly, isoTime, nullableText, text, wholeNumber, type Schema } from './schemas.ts';
import {
  a,
  aError,
  badInput,
  minutes,
  role,
  roles,
  signedIn,
  unavailable,
  type Endpoint,
} from './endpoint.ts';
import { OPERATIONS_ENDPOINTS } from './operations-endpoints.ts';
import { notification, serviceState } from './service-schemas.ts';
import { PART_B_ENDPOINTS, SINGLE_SIGN_ON_ENDPOINTS } from './session-endpoints.ts';

/*
 * Every endpoint of the server outside Part C (whose operations are each described by their
 * module in pipelineapi/operations/): adding a route is one entry here or in the lists this
 * one gathers (single sign-on and Part B in session-endpoints.ts, operations in
 * operations-endpoints.ts; bulk, fleet and history in theirs). openapi.test.ts fails on a
 * route the server registers that is missing, and on an entry the server does not answer.
 */

export type { Answer, Endpoint, Field } from './endpoint.ts';
export { a, aError, failureCode, upstreamCause } from './endpoint.ts';

/** A person's role on each service (contract section 12): granted there, else their default. */
const serviceRoles: Schema = {
  type: 'array',
  items: exactly({ service: text, role }),
  description: 'in the services’ order; the first is the one plain /pipelineapi reaches',
};
const settings = exactly({
  apiEnabled: { type: 'boolean' },
  apiKey: nullableText,
  sharedKeyEnabled: { type: 'boolean' },
});
const bool: Schema = { enum: ['true', 'false'] };
/** A personal API token as its owner lists it (contract section 12): never its value. */
const tokenFields = {
  id: wholeNumber,
  name: text,
  role,
  service: nullableText,
  createdAt: isoTime,
  expiresAt: isoTime,
  lastUsedAt: { type: ['string', 'null'], format: 'date-time' },
};
const day: Schema = { type: 'string', pattern: '^\\d{8}$' };
const wholeText: Schema = { type: 'string', pattern: '^\\d{1,10}$' };

const auditEntry = exactly({
  time: isoTime,
  day,
  userName: nullableText,
  via: {
    anyOf: [{ enum: ['session', 'key', 'cookie', 'none'] }, { type: 'string', pattern: '^token ' }],
    description: '`token <name>`: a personal API token of the user',
  },
  address: text,
  service: nullableText,
  operation: text,
  parameters: { type: 'object', additionalProperties: text },
  httpStatus: { type: 'integer' },
  status: text,
  message: text,
  requestId: nullableText,
  truncated: { type: 'boolean', description: 'it lost parameters or text to its bounds' },
});

const auditFilters: readonly Field[] = [
  { name: 'from', schema: day },
  { name: 'to', schema: day },
  { name: 'user', schema: text },
  { name: 'service', schema: text },
  { name: 'operation', schema: text },
  { name: 'requestid', schema: text },
];

/**
 * Sign-in and sign-out take POST only: a password or session id never goes in a URL. The
 * server answers their other methods 405, which the POST operation's 405 answer documents;
 * a refusal is no operation of its own (nothing to call), so they are listed here rather
 * than in the document's paths. openapi.test.ts holds the server's routes to both.
 */
export const REFUSED_METHODS: readonly { path: string; methods: readonly string[] }[] = [
  '/mcapi/auth/login',
  '/mcapi/auth/logout',
  '/api/auth/login',
  '/api/auth/logout',
].map((path) => ({ path, methods: ['GET', 'PUT', 'DELETE', 'PATCH'] }));

export const ENDPOINTS: readonly Endpoint[] = [
  // Part A: management console (interfaces.md section 7, contract section 4)
  {
    method: 'POST',
    path: '/mcapi/auth/login',
    tag: 'Part A',
    summary: 'Sign in with a name and password; 20 attempts a minute per address',
    fields: [
      { name: 'userName', schema: text, required: true },
      { name: 'password', schema: text, required: true },
      { name: 'timeout', schema: minutes, description: 'idle minutes, 30 by default' },
      { name: 'getRole', schema: { enum: ['true', 'false'] } },
    ],
    answers: {
      '200': a(
        'Signed in',
        exactly({ sessionId: text, serverName: text, serverId: text, role: roles }, ['role']),
      ),
      ...badInput,
      '403': aError('Unknown user or wrong password (3002)'),
      '405': aError('Another method (4005); Allow: POST'),
      '429': aError('Too many attempts (4029)'),
      ...unavailable,
    },
  },
  {
    method: 'POST',
    path: '/mcapi/auth/logout',
    tag: 'Part A',
    summary: 'End a session (and any SESSIONID cookie the browser holds)',
    fields: [{ name: 'sessionId', schema: text, required: true }],
    answers: {
      '200': a(
        'Signed out; a session from the OpenID provider also gives the URL that ends it there',
        exactly({ sessionId: text, endSessionUrl: { type: 'string', format: 'uri' } }, [
          'endSessionUrl',
        ]),
      ),
      ...badInput,
      '404': aError('No such session (4003)'),
      '405': aError('Another method (4005); Allow: POST'),
      ...unavailable,
    },
  },
  {
    method: 'GET',
    path: '/mcapi/auth/session',
    tag: 'Part A',
    summary: 'Who the session is, with their role on each service (extension)',
    security: ['mcSession'],
    answers: {
      '200': a(
        'The session',
        exactly({
          userName: text,
          role: roles,
          serviceRoles,
          serverName: text,
          serverId: text,
          expires: isoTime,
        }),
      ),
      '401': signedIn['401'],
    },
  },
  {
    method: 'GET',
    path: '/mcapi/pipeline/settings',
    tag: 'Part A',
    summary: 'The pipeline API settings (administrators)',
    security: ['mcSession'],
    answers: { '200': a('The settings', settings), ...signedIn },
  },
  {
    method: 'PUT',
    path: '/mcapi/pipeline/settings',
    tag: 'Part A',
    summary: 'Enable or disable the pipeline API, or the shared key (administrators)',
    security: ['mcSession'],
    fields: [
      { name: 'apiEnabled', schema: bool, description: 'required unless sharedKeyEnabled is sent' },
      {
        name: 'sharedKeyEnabled',
        schema: bool,
        description: 'false: only personal tokens are accepted in X-Pipelinewebapi',
      },
    ],
    answers: { '200': a('The settings now', settings), ...badInput, ...signedIn, ...unavailable },
  },
  {
    method: 'POST',
    path: '/mcapi/pipeline/apikey',
    tag: 'Part A',
    summary: 'Reissue the API key (administrators); the old one stops at once',
    security: ['mcSession'],
    answers: {
      '200': a('The new key', exactly({ apiKey: text })),
      ...signedIn,
      ...unavailable,
    },
  },
  {
    method: 'GET',
    path: '/mcapi/tokens',
    tag: 'Part A',
    summary:
      'The caller’s personal API tokens, with their last use, and those revoked in the last 30 days with why (contract 12; issue 39)',
    security: ['mcSession'],
    fields: [
      {
        name: 'user',
        schema: text,
        description: 'another person’s tokens (administrators)',
      },
    ],
    answers: {
      '200': a(
        'The tokens',
        exactly({
          tokens: { type: 'array', items: exactly(tokenFields) },
          revoked: {
            type: 'array',
            items: exactly({
              ...tokenFields,
              revokedAt: isoTime,
              revokedBy: {
                type: 'string',
                enum: ['owner', 'administrator', 'reset', 'cli', 'unknown'],
              },
              revokedByName: nullableText,
              why: text,
            }),
          },
        }),
      ),
      ...badInput,
      '401': signedIn['401'],
      '403': aError('Another person’s tokens, asked by someone not an administrator (3003)'),
      '404': aError('No such user (4004)'),
    },
  },
  {
    method: 'POST',
    path: '/mcapi/tokens',
    tag: 'Part A',
    summary: 'Create a personal API token; its value is in this answer alone (contract 12)',
    security: ['mcSession'],
    fields: [
      { name: 'name', schema: { type: 'string', minLength: 1, maxLength: 64 }, required: true },
      {
        name: 'expiresInDays',
        schema: { type: 'string', pattern: '^\\d{1,3}$' },
        required: true,
        description: '1 to 365',
      },
      {
        name: 'role',
        schema: role,
        description: 'no higher than the caller’s; theirs if left out',
      },
      {
        name: 'service',
        schema: text,
        description: 'the one service it may call; all if left out',
      },
    ],
    answers: {
      '200': a('The token, shown once', exactly({ ...tokenFields, token: text })),
      ...badInput,
      '401': signedIn['401'],
      '403': aError('A role above the caller’s (3003)'),
      ...unavailable,
    },
  },
  {
    method: 'DELETE',
    path: '/mcapi/tokens/{id}',
    tag: 'Part A',
    summary:
      'Revoke one of the caller’s personal API tokens (an administrator: anyone’s), at once (contract 12)',
    security: ['mcSession'],
    pathFields: [{ name: 'id', schema: text, required: true }],
    answers: {
      '200': a('Revoked', exactly({ id: wholeNumber, revoked: { type: 'boolean' } })),
      '401': signedIn['401'],
      '404': aError('No such live token of the caller (of anyone, for an administrator) (4004)'),
      ...unavailable,
    },
  },
  {
    method: 'GET',
    path: '/mcapi/services',
    tag: 'Extensions',
    summary: 'The services this server answers for, with their last check (contract 7)',
    security: ['mcSession'],
    answers: {
      '200': a('The services', exactly({ services: { type: 'array', items: serviceState } })),
      '401': signedIn['401'],
    },
  },
  {
    method: 'GET',
    path: '/mcapi/audit',
    tag: 'Extensions',
    summary: 'The audit log, newest first (administrators; contract 7); at most 1 MiB of entries',
    security: ['mcSession'],
    fields: [
      ...auditFilters,
      { name: 'index', schema: wholeText },
      { name: 'pagesize', schema: wholeText, description: '1 to 1000' },
    ],
    answers: {
      '200': a(
        'A page of entries; fewer than pageSize when they would pass 1 MiB, `next` the index of the rest (-1: none)',
        exactly({
          total: wholeNumber,
          index: wholeNumber,
          pageSize: wholeNumber,
          next: { type: 'integer', minimum: -1 },
          entries: { type: 'array', items: auditEntry },
        }),
      ),
      ...badInput,
      ...signedIn,
    },
  },
  {
    method: 'GET',
    path: '/mcapi/audit/export',
    tag: 'Extensions',
    summary: 'The filtered range of the audit log as CSV, newest first, streamed (administrators)',
    security: ['mcSession'],
    fields: auditFilters,
    answers: {
      '200': {
        description:
          "RFC 4180 CSV with a header line; a cell a spreadsheet would read as a formula starts with '",
        content: { 'text/csv': text },
      },
      ...badInput,
      ...signedIn,
    },
  },
  {
    method: 'GET',
    path: '/mcapi/notifications',
    tag: 'Extensions',
    summary: 'Receivers (by origin) and the notifications sent, newest first (administrators)',
    security: ['mcSession'],
    answers: {
      '200': a(
        'Receivers and notifications',
        exactly({
          targets: { type: 'array', items: text },
          notifications: { type: 'array', items: notification },
        }),
      ),
      ...signedIn,
    },
  },
  {
    method: 'POST',
    path: '/mcapi/notifications/test',
    tag: 'Extensions',
    summary: 'Send a test message to every receiver and say how each went (administrators)',
    security: ['mcSession'],
    answers: {
      '200': a(
        'One result per receiver',
        exactly({
          results: {
            type: 'array',
            items: exactly({ target: text, outcome: text, message: text }),
          },
        }),
      ),
      ...signedIn,
      ...unavailable,
    },
  },
  ...SINGLE_SIGN_ON_ENDPOINTS,
  ...PART_B_ENDPOINTS,
  ...OPERATIONS_ENDPOINTS,
];
