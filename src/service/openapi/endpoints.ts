import { ROLES } from '../../kit/wire.ts';
import {
  exactly,
  isoTime,
  nullableText,
  partAError,
  partASuccess,
  text,
  wholeNumber,
  type Schema,
} from './schemas.ts';

/*
 * Every endpoint of the server outside Part C (whose operations come from wire.ts, see
 * part-c.ts): adding a route is one entry here. openapi.test.ts fails on a route the
 * server registers that is missing here, and on an entry here the server does not answer.
 *
 * Over 400 lines on purpose: the list is the one place a route is described, read as a
 * table; split by Part, an endpoint's neighbours (its Part A and Part B twins) would part.
 */

/** A form field: in the query of a GET or DELETE, in the form body of a POST or PUT (either works). */
export interface Field {
  readonly name: string;
  readonly schema: Schema;
  readonly required?: boolean;
  readonly description?: string;
}

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
const b = (description: string): Answer => ({
  description,
  content: { [PART_B_XML]: { type: 'string', description: '<result><status>…' } },
});

const minutes: Schema = { type: 'string', pattern: '^\\d{1,4}$', description: '1 to 1440' };
const roles: Schema = { type: 'array', items: { enum: [...ROLES] } };
const role: Schema = { enum: [...ROLES] };
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

const signedIn = {
  '401': aError('No live session (3001)'),
  '403': aError('Not an administrator (3003)'),
};
const badInput = { '400': aError('A missing or malformed parameter, named') };
const unavailable = { '503': aError('The data cannot be written (a full disk)') };

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

const learnt = (...values: string[]): Schema => ({ enum: [...values, 'unknown'] });
const nullableCount: Schema = { type: ['integer', 'null'], minimum: 0 };
/** What the gateway learnt of an upstream's answers (contract section 12). */
const capabilities = exactly({
  pagesize: learnt('honoured', 'ignored'),
  index: learnt('honoured', 'ignored'),
  next: learnt('stated', 'always -1', 'absent'),
  total: learnt('stated', 'absent'),
  cap: nullableCount,
  probedAt: nullableText,
  probeError: nullableText,
  probeErrorCode: failureCode,
  probeErrorCause: upstreamCause,
  charset: nullableText,
  charsetFrom: { enum: ['bom', 'content-type', 'document', 'default', null] },
  setsSessionId: { type: 'boolean' },
  concurrency: wholeNumber,
  concurrencyLimit: nullableCount,
  largestAnswerBytes: wholeNumber,
  compressed: { type: 'boolean' },
  datesZone: nullableText,
  zoneFrom: { enum: ['configured', 'dates', 'none'] },
  pollSeconds: { type: ['number', 'null'], minimum: 0 },
  lastRoundMs: { type: ['number', 'null'], minimum: 0 },
});

const words: Schema = { type: 'array', items: text };
/** What a service's status words mean, with the refusals learnt of it (README "Status words"). */
const statuses = exactly({
  failed: words,
  waiting: words,
  running: words,
  final: words,
  retryable: words,
  cancellable: words,
  from: { enum: ['contract', 'configured', 'defaults'] },
  learned: {
    type: 'array',
    items: exactly({
      action: { enum: ['retry', 'cancel'] },
      status: text,
      message: text,
      at: isoTime,
    }),
  },
});

const serviceState = exactly(
  {
    id: text,
    name: text,
    label: nullableText,
    color: nullableText,
    embedded: { type: 'boolean' },
    reachable: { type: 'boolean' },
    version: nullableText,
    checkedAt: nullableText,
    since: nullableText,
    message: nullableText,
    // The message's code and, when the sentence is the gateway's own, its cause in data.
    code: failureCode,
    cause: upstreamCause,
    // An upstream's request index: as of when, and why its last round failed.
    indexedAt: nullableText,
    indexError: nullableText,
    indexErrorCode: failureCode,
    indexErrorCause: upstreamCause,
    // The service's zone (an IANA name), its offset now, and the abbreviation its dates carry.
    timeZone: text,
    utcOffsetMinutes: { type: ['integer', 'null'], minimum: -840, maximum: 840 },
    zoneName: text,
    capabilities,
    statuses,
    // The caller's role on the service (contract section 12).
    role,
  },
  // statuses: absent from a server before them (the dashboard then takes the defaults);
  // code and cause too (its message is then shown as words, as written).
  [
    'code',
    'cause',
    'indexedAt',
    'indexError',
    'indexErrorCode',
    'indexErrorCause',
    'capabilities',
    'statuses',
    'role',
  ],
);

const notification = exactly({
  time: isoTime,
  target: text,
  requestId: text,
  status: text,
  attempts: { type: 'integer' },
  outcome: { enum: ['pending', 'sent', 'failed'] },
  message: text,
});

const component = exactly({
  name: text,
  state: { enum: ['ok', 'failing'] },
  checkedAt: nullableText,
  message: nullableText,
});
const readiness = exactly({
  status: { enum: ['ready', 'not ready'] },
  components: { type: 'array', items: component },
});

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
    summary: 'The caller’s personal API tokens, with their last use (contract 12)',
    security: ['mcSession'],
    answers: {
      '200': a('The tokens', exactly({ tokens: { type: 'array', items: exactly(tokenFields) } })),
      '401': signedIn['401'],
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
    summary: 'Revoke one of the caller’s personal API tokens, at once (contract 12)',
    security: ['mcSession'],
    pathFields: [{ name: 'id', schema: text, required: true }],
    answers: {
      '200': a('Revoked', exactly({ id: wholeNumber, revoked: { type: 'boolean' } })),
      '401': signedIn['401'],
      '404': aError('No such token of the caller (4004)'),
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
  // Single sign-on (README "Single sign-on"): 404 where it is not configured
  {
    method: 'GET',
    path: '/mcapi/auth/oidc',
    tag: 'Single sign-on',
    summary: 'Whether single sign-on is configured, and the provider’s name for the button',
    answers: {
      '200': a(
        'Configured or not',
        exactly({ enabled: { type: 'boolean' }, name: text }, ['name']),
      ),
    },
  },
  {
    method: 'GET',
    path: '/mcapi/auth/oidc/start',
    tag: 'Single sign-on',
    summary: 'Go to the OpenID provider to sign in (a browser navigation)',
    fields: [{ name: 'next', schema: text, description: 'a dashboard path to go to after' }],
    answers: {
      '302': { description: 'To the provider', content: {} },
      '404': aError('Single sign-on is not configured'),
      '429': aError(
        'Too many sign-ins started from this address and not finished (4029); Retry-After',
      ),
    },
  },
  {
    method: 'GET',
    path: '/mcapi/auth/oidc/callback',
    tag: 'Single sign-on',
    summary: 'Where the provider sends the browser back; on to /sign-in#oidc=<handoff>',
    fields: [
      { name: 'code', schema: text },
      { name: 'state', schema: text },
    ],
    answers: {
      '302': { description: 'To the sign-in page with a one-time handoff', content: {} },
      '404': aError('Single sign-on is not configured'),
    },
  },
  {
    method: 'GET',
    path: '/mcapi/auth/oidc/session',
    tag: 'Single sign-on',
    summary: 'Trade the one-time handoff for the session, or for the reason there is none',
    fields: [{ name: 'code', schema: text, required: true }],
    answers: {
      '200': a(
        'Signed in',
        exactly({ sessionId: text, userName: text, role: roles, serverName: text, serverId: text }),
      ),
      '403': aError('Refused, with the reason (3002), or the handoff expired'),
      '404': aError('Single sign-on is not configured'),
    },
  },
  // Part B: flow service (interfaces.md section 7)
  {
    method: 'POST',
    path: '/api/auth/login',
    tag: 'Part B',
    summary: 'Sign in to the flow service',
    fields: [
      { name: 'user', schema: text, required: true },
      { name: 'password', schema: text },
      { name: 'lifetime', schema: minutes, description: 'minutes, 30 by default' },
    ],
    answers: {
      '200': b('<data><sessionId>'),
      '400': b('A missing or malformed parameter (2000)'),
      '403': b('Unknown user or wrong password (2001)'),
      '405': b('Another method (4005); Allow: POST'),
      '429': b('Too many attempts (4029)'),
      '503': b('The data cannot be written'),
    },
  },
  {
    method: 'POST',
    path: '/api/auth/logout',
    tag: 'Part B',
    summary: 'End a flow service session',
    fields: [{ name: 'sessionId', schema: text, required: true }],
    answers: {
      '200': b('<data><sessionId>'),
      '400': b('A missing parameter (2000)'),
      '404': b('No such session (2002)'),
      '405': b('Another method (4005); Allow: POST'),
      '503': b('The data cannot be written'),
    },
  },
  {
    method: 'GET',
    path: '/api/auth/session',
    tag: 'Part B',
    summary: 'Who the flow service session is (extension)',
    security: ['fsSession'],
    answers: { '200': b('<data><user><role><expires>'), '401': b('No live session (2003)') },
  },
  // Operations (contract section 9)
  {
    method: 'GET',
    path: '/healthz',
    tag: 'Operations',
    summary: 'Answers while the process serves',
    answers: {
      '200': {
        description: 'Serving',
        content: { 'application/json': exactly({ status: { const: 'ok' } }) },
      },
    },
  },
  {
    method: 'GET',
    path: '/readyz',
    tag: 'Operations',
    summary: 'Ready when the databases answer and every upstream answered its last check',
    answers: {
      '200': { description: 'Ready', content: { 'application/json': readiness } },
      '503': {
        description: 'Not ready; the failing components named',
        content: { 'application/json': readiness },
      },
    },
  },
  {
    method: 'GET',
    path: '/metrics',
    tag: 'Operations',
    summary: 'Prometheus metrics (Bearer key when --metrics-key is set)',
    security: ['metricsKey', 'none'],
    answers: {
      '200': { description: 'Prometheus text format', content: { 'text/plain': text } },
      '401': {
        description: 'The metrics key is missing or wrong',
        content: { 'text/plain': text },
      },
    },
  },
  {
    method: 'GET',
    path: '/openapi.json',
    tag: 'Operations',
    summary: 'This document',
    answers: {
      '200': { description: 'OpenAPI 3.1', content: { 'application/json': { type: 'object' } } },
    },
  },
  {
    method: 'GET',
    path: '/docs',
    tag: 'Operations',
    summary: 'This document, rendered (Swagger UI, served by this server)',
    answers: { '200': { description: 'An HTML page', content: { 'text/html': text } } },
  },
];
