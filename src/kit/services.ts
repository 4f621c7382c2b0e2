import {
  answerFields,
  fieldsOf,
  numberOf,
  objectsOf,
  oneOf,
  textOf,
  type Learnt,
} from './liberal.ts';
import { decodeStatusSemantics, type StatusSemantics } from './status-semantics.ts';
import { decodeUpstreamCause, type UpstreamCause } from './upstream-failure.ts';
import type { Role } from './wire.ts';

// `GET /mcapi/services` (contract sections 7 and 12): the services the server stands in
// front of, with the last check of each. The answer types are what the server writes (its
// routes are typed with them); the decoded ones are what a client reads, liberally.

/** How an upstream answers, as the server writes it (null: not learnt yet). */
/** One list's paging facts as learnt: `requestlist`, `actiondb tablename=SALES`, … */
export interface LearntListAnswer {
  readonly list: string;
  readonly cap: number | null;
  readonly index: 'honoured' | 'pages' | 'ignored' | null;
  readonly pagesize: 'ignored' | null;
  readonly learnedAt: string;
  readonly evidence: string;
}

export interface CapabilitiesAnswer {
  /** Whether requestlist holds at most `pagesize` rows. */
  readonly pagesize: Learnt<'honoured' | 'ignored'>;
  /** Whether `index` skips rows ('honoured'), numbers pages of `pagesize` rows ('pages'), or neither. */
  readonly index: Learnt<'honoured' | 'pages' | 'ignored'>;
  /** Whether Info's Next is truthful. */
  readonly next: Learnt<'stated' | 'always -1' | 'absent'>;
  readonly total: Learnt<'stated' | 'absent'>;
  /** The cap of a day's list (of every pipeline), as learnt from its own answers. */
  readonly cap: number | null;
  /**
   * What each list's own answers showed, with the answer that showed it (issue 37, item 2):
   * a fact of one list is never applied to another. Absent from servers before it.
   */
  readonly lists?: readonly LearntListAnswer[];
  readonly probedAt: string | null;
  readonly probeError: string | null;
  readonly probeErrorCode: number | null;
  readonly probeErrorCause: UpstreamCause | null;
  readonly charset: string | null;
  readonly charsetFrom: string | null;
  /** It sets a SESSIONID (kept on the server, sent back, never passed on). */
  readonly setsSessionId: boolean;
  readonly concurrency: number;
  readonly concurrencyLimit: number | null;
  readonly largestAnswerBytes: number;
  /** It compressed an answer. */
  readonly compressed: boolean;
  readonly datesZone: string | null;
  readonly zoneFrom: 'configured' | 'dates' | 'none';
  readonly pollSeconds: number | null;
  readonly lastRoundMs: number | null;
}

/**
 * One service as the server writes it in `/mcapi/services`: what the server knows of it,
 * with the caller's role there. The server keeps its services' state in this shape less the
 * role (service/gateway/service-state.ts).
 */
export interface ServiceAnswer {
  readonly id: string;
  readonly name: string;
  readonly label: string | null;
  readonly color: string | null;
  readonly embedded: boolean;
  readonly reachable: boolean;
  readonly version: string | null;
  /** When the last check ended (ISO), null before the first. */
  readonly checkedAt: string | null;
  /** Since when it has been reachable or not (ISO). */
  readonly since: string | null;
  /** Why the last check failed: the gateway's English sentence, or the service's own words. */
  readonly message: string | null;
  /** The Part C code of that failure (5002, 5004…), null while it answers or when none applies. */
  readonly code: number | null;
  /**
   * The message's cause in data when the sentence is the gateway's own (upstream-failure.ts);
   * null when the message is the service's own words (or no failure).
   */
  readonly cause: UpstreamCause | null;
  /**
   * An upstream's request index is as of this time (ISO; null before its first round, and
   * for the embedded service, whose lists are always current).
   */
  readonly indexedAt?: string | null;
  /** Why the index's last round failed. */
  readonly indexError?: string | null;
  /** Its code and cause, as `code` and `cause` are of `message`. */
  readonly indexErrorCode?: number | null;
  readonly indexErrorCause?: UpstreamCause | null;
  /** The service's zone as an IANA name, '' when neither the server nor its configuration knows it. */
  readonly timeZone: string;
  /** Minutes its clock is ahead of UTC now; null while unknown (an upstream not yet heard from). */
  readonly utcOffsetMinutes: number | null;
  /**
   * True while that offset is only an estimate: an upstream's first round took it from the
   * day's newest request, which may have begun hours before (docs/gateway.md).
   */
  readonly utcOffsetEstimated: boolean;
  /** The zone abbreviation its own dates carry (e.g. JST), '' while unknown. */
  readonly zoneName: string;
  /** What the gateway learnt of how an upstream answers (contract section 12). */
  readonly capabilities?: CapabilitiesAnswer;
  /** What its status words mean, with what the upstream refused (docs/gateway.md "Status words"). */
  readonly statuses: StatusSemantics;
  /** The caller's role on this service (contract section 12). */
  readonly role: Role;
}

/** The data of `GET /mcapi/services`. */
export interface ServicesAnswer {
  readonly services: readonly ServiceAnswer[];
}

/**
 * How an upstream answers (contract section 12), as `GET /mcapi/services` tells it: paging,
 * charset, session, load, zone and the poller's pace. Absent numbers are undefined and
 * absent texts '' (the server writes null); the learnt words and flags read as written.
 */
export interface Capabilities extends Pick<
  CapabilitiesAnswer,
  'pagesize' | 'index' | 'next' | 'total' | 'setsSessionId' | 'compressed'
> {
  /** The most rows per answer of a day's list, once it was seen capping. */
  readonly cap: number | undefined;
  /** What each list's own answers showed, with the answer that showed it; undefined from older servers. */
  readonly lists?: readonly LearntListAnswer[] | undefined;
  /** When the paging probe last ran (ISO), or ''. */
  readonly probedAt: string;
  /** Why the probe failed: the gateway's English sentence, or the service's words (untrusted), or ''. */
  readonly probeError: string;
  /** Its code and cause, as a service's `code` and `cause` are of its message. */
  readonly probeErrorCode?: number | undefined;
  readonly probeErrorCause?: UpstreamCause | undefined;
  /** The charset its answers were read in (the decoder's name, e.g. shift_jis), or ''. */
  readonly charset: string;
  readonly charsetFrom: Learnt<'bom' | 'content-type' | 'document' | 'default'>;
  /** Calls allowed at once now. */
  readonly concurrency: number | undefined;
  /** The calls at once it took before refusing with 503/429, once it did. */
  readonly concurrencyLimit: number | undefined;
  readonly largestAnswerBytes: number | undefined;
  /** The zone its request dates carry (JST, +09:00), or ''. */
  readonly datesZone: string;
  /** Where its zone comes from; 'none': neither configuration nor its dates state one. */
  readonly zoneFrom: Learnt<'configured' | 'dates' | 'none'>;
  /** Seconds the poller waits between rounds now, adapted to their cost. */
  readonly pollSeconds: number | undefined;
  readonly lastRoundMs: number | undefined;
}

/**
 * One pipeline service the server stands in front of (or its own embedded one), as a client
 * reads it: texts the server writes as null read '', numbers undefined.
 */
export interface ServiceInfo {
  readonly id: string;
  readonly name: string;
  readonly label: string;
  readonly color: string;
  readonly embedded: boolean;
  readonly reachable: boolean;
  readonly version: string;
  readonly checkedAt: string;
  readonly since: string;
  /** Why it is not reachable: the gateway's English sentence, or the service's words (untrusted). */
  readonly message: string;
  /** That failure's Part C code (5002, 5004…), when the server gave one. */
  readonly code?: number | undefined;
  /**
   * The message's cause in data when the sentence is the gateway's own (WhatFailed words it);
   * undefined: the message is words to show as they are.
   */
  readonly cause?: UpstreamCause | undefined;
  /** An upstream's request lists are the server's index as of this time (ISO), or ''. */
  readonly indexedAt: string;
  /** Why the index's last refresh failed, or ''. */
  readonly indexError: string;
  /** Its code and cause, as `code` and `cause` are of `message`. */
  readonly indexErrorCode?: number | undefined;
  readonly indexErrorCause?: UpstreamCause | undefined;
  /** The service's zone as an IANA name (e.g. Asia/Tokyo), or '' when the server does not know it. */
  readonly timeZone: string;
  /** The service's offset from UTC in minutes, when only that is known (told by its answers). */
  readonly utcOffsetMinutes: number | undefined;
  /** Whether that offset is only an estimate (see ServiceAnswer); absent: it is not. */
  readonly utcOffsetEstimated?: boolean | undefined;
  /** The zone's name as the service writes it in its own dates (e.g. JST), or ''. */
  readonly zoneName: string;
  /** What the gateway learnt of how an upstream answers; undefined for the embedded one. */
  readonly capabilities: Capabilities | undefined;
  /** What its status words mean; absent: the defaults of its kind. */
  readonly statuses?: StatusSemantics | undefined;
}

/** One list's learnt facts, read liberally; none when it names no list. */
function decodeLearntList(value: unknown): LearntListAnswer[] {
  const l = fieldsOf<LearntListAnswer>(value);
  const list = textOf(l?.list);
  if (l === undefined || list === '') return [];
  const index = oneOf(l.index, ['honoured', 'pages', 'ignored']);
  return [
    {
      list,
      cap: typeof l.cap === 'number' ? l.cap : null,
      index: index === 'unknown' ? null : index,
      pagesize: l.pagesize === 'ignored' ? 'ignored' : null,
      learnedAt: textOf(l.learnedAt),
      evidence: textOf(l.evidence),
    },
  ];
}

/**
 * A service's `capabilities`, read liberally; undefined when it is no object.
 * @example decodeCapabilities(service.capabilities)?.pagesize // 'honoured'
 */
export function decodeCapabilities(value: unknown): Capabilities | undefined {
  const c = fieldsOf<CapabilitiesAnswer>(value);
  if (c === undefined) return undefined;
  return {
    pagesize: oneOf(c.pagesize, ['honoured', 'ignored']),
    index: oneOf(c.index, ['honoured', 'pages', 'ignored']),
    next: oneOf(c.next, ['stated', 'always -1', 'absent']),
    total: oneOf(c.total, ['stated', 'absent']),
    cap: numberOf(c.cap),
    lists: Array.isArray(c.lists) ? c.lists.flatMap(decodeLearntList) : undefined,
    probedAt: textOf(c.probedAt),
    probeError: textOf(c.probeError),
    probeErrorCode: numberOf(c.probeErrorCode),
    probeErrorCause: decodeUpstreamCause(c.probeErrorCause),
    charset: textOf(c.charset),
    charsetFrom: oneOf(c.charsetFrom, ['bom', 'content-type', 'document', 'default']),
    setsSessionId: c.setsSessionId === true,
    concurrency: numberOf(c.concurrency),
    concurrencyLimit: numberOf(c.concurrencyLimit),
    largestAnswerBytes: numberOf(c.largestAnswerBytes),
    compressed: c.compressed === true,
    datesZone: textOf(c.datesZone),
    zoneFrom: oneOf(c.zoneFrom, ['configured', 'dates', 'none']),
    pollSeconds: numberOf(c.pollSeconds),
    lastRoundMs: numberOf(c.lastRoundMs),
  };
}

/**
 * The data of `GET /mcapi/services`, read liberally: a service without an id is left out,
 * a field missing or of another type reads as unknown. An answer that is no object, or
 * whose `services` is no list, is a ParseError naming it.
 *
 * @example decodeServices(await mc.read('/services')).map((s) => s.id)
 */
export function decodeServices(data: unknown): ServiceInfo[] {
  const answer = answerFields<ServicesAnswer>(data, '/mcapi/services');
  return objectsOf<ServiceAnswer>(answer.services, 'services').flatMap((s): ServiceInfo[] => {
    const id = textOf(s.id);
    if (!id) return [];
    const embedded = s.embedded === true;
    return [
      {
        id,
        name: textOf(s.name) || id,
        label: textOf(s.label),
        color: textOf(s.color),
        embedded,
        reachable: s.reachable !== false,
        version: textOf(s.version),
        checkedAt: textOf(s.checkedAt),
        since: textOf(s.since),
        message: textOf(s.message),
        code: numberOf(s.code),
        cause: decodeUpstreamCause(s.cause),
        indexedAt: textOf(s.indexedAt),
        indexError: textOf(s.indexError),
        indexErrorCode: numberOf(s.indexErrorCode),
        indexErrorCause: decodeUpstreamCause(s.indexErrorCause),
        timeZone: textOf(s.timeZone),
        utcOffsetMinutes: numberOf(s.utcOffsetMinutes),
        utcOffsetEstimated: s.utcOffsetEstimated === true,
        zoneName: textOf(s.zoneName),
        capabilities: embedded ? undefined : decodeCapabilities(s.capabilities),
        statuses: decodeStatusSemantics(s.statuses, embedded),
      },
    ];
  });
}

/** The one service a server without --upstream/--services has, when the list cannot be read. */
export const EMBEDDED_ONLY: readonly ServiceInfo[] = [
  {
    id: 'local',
    name: 'local',
    label: '',
    color: '',
    embedded: true,
    reachable: true,
    version: '',
    checkedAt: '',
    since: '',
    message: '',
    indexedAt: '',
    indexError: '',
    timeZone: '',
    utcOffsetMinutes: undefined,
    zoneName: '',
    capabilities: undefined,
  },
];
