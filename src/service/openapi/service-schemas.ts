import { exactly, isoTime, nullableText, text, wholeNumber, type Schema } from './schemas.ts';
import { failureCode, role, upstreamCause } from './endpoint.ts';

// What GET /mcapi/services, /mcapi/notifications and /readyz answer of the services.

const learnt = (...values: string[]): Schema => ({ enum: [...values, 'unknown'] });
const nullableCount: Schema = { type: ['integer', 'null'], minimum: 0 };
/** What the gateway learnt of an upstream's answers (contract section 12). */
const capabilities = exactly({
  pagesize: learnt('honoured', 'ignored'),
  index: learnt('honoured', 'pages', 'ignored'),
  next: learnt('stated', 'always -1', 'absent'),
  total: learnt('stated', 'absent'),
  cap: nullableCount,
  lists: {
    type: 'array',
    items: exactly({
      list: text,
      cap: nullableCount,
      index: { enum: ['honoured', 'pages', 'ignored', null] },
      pagesize: { enum: ['ignored', null] },
      learnedAt: isoTime,
      evidence: text,
    }),
  },
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
/** What a service's status words mean, with the refusals learnt of it (docs/gateway.md "Status words"). */
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

export const serviceState = exactly(
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
    // True while that offset is a first round's estimate (docs/gateway.md).
    utcOffsetEstimated: { type: 'boolean' },
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

export const notification = exactly({
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
export const readiness = exactly({
  status: { enum: ['ready', 'not ready'] },
  components: { type: 'array', items: component },
});
