// What `GET /mcapi/services` tells of each service, decoded liberally: a field missing or of
// another type reads as unknown, never as a made-up value. No browser APIs here.

import { decodeUpstreamCause, type UpstreamCause } from '../../kit/index.ts';
import { decodeStatusSemantics, type StatusSemantics } from '../shared/status-semantics.ts';

/** One pipeline service the server stands in front of (or its own embedded one). */
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
  /** The zone's name as the service writes it in its own dates (e.g. JST), or ''. */
  readonly zoneName: string;
  /** What the gateway learnt of how an upstream answers; undefined for the embedded one. */
  readonly capabilities: Capabilities | undefined;
  /** What its status words mean (shared/status-semantics.ts); absent: the defaults of its kind. */
  readonly statuses?: StatusSemantics | undefined;
}

/** A fact the gateway learnt, or 'unknown' until it has (a value this dashboard does not know too). */
export type Learnt<T extends string> = T | 'unknown';

/**
 * How an upstream answers (contract section 12), as `GET /mcapi/services` tells it: paging,
 * charset, session, load, zone and the poller's pace. Absent numbers are undefined and
 * absent texts '' (the server writes null).
 */
export interface Capabilities {
  /** Whether requestlist holds at most `pagesize` rows. */
  readonly pagesize: Learnt<'honoured' | 'ignored'>;
  /** Whether `index` skips rows. */
  readonly index: Learnt<'honoured' | 'ignored'>;
  /** Whether Info's Next is truthful. */
  readonly next: Learnt<'stated' | 'always -1' | 'absent'>;
  readonly total: Learnt<'stated' | 'absent'>;
  /** The most rows per answer, once it was seen capping. */
  readonly cap: number | undefined;
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
  readonly setsSessionId: boolean;
  /** Calls allowed at once now. */
  readonly concurrency: number | undefined;
  /** The calls at once it took before refusing with 503/429, once it did. */
  readonly concurrencyLimit: number | undefined;
  readonly largestAnswerBytes: number | undefined;
  readonly compressed: boolean;
  /** The zone its request dates carry (JST, +09:00), or ''. */
  readonly datesZone: string;
  /** Where its zone comes from; 'none': neither configuration nor its dates state one. */
  readonly zoneFrom: Learnt<'configured' | 'dates' | 'none'>;
  /** Seconds the poller waits between rounds now, adapted to their cost. */
  readonly pollSeconds: number | undefined;
  readonly lastRoundMs: number | undefined;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v == null ? '' : String(v));
const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined;
/** One of `values`, else 'unknown': a word a newer server adds is not shown as a known one. */
const oneOf = <T extends string>(v: unknown, values: readonly T[]): Learnt<T> =>
  values.find((value) => value === v) ?? 'unknown';

export function decodeCapabilities(value: unknown): Capabilities | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const c = value as Record<string, unknown>;
  return {
    pagesize: oneOf(c.pagesize, ['honoured', 'ignored']),
    index: oneOf(c.index, ['honoured', 'ignored']),
    next: oneOf(c.next, ['stated', 'always -1', 'absent']),
    total: oneOf(c.total, ['stated', 'absent']),
    cap: num(c.cap),
    probedAt: str(c.probedAt),
    probeError: str(c.probeError),
    probeErrorCode: num(c.probeErrorCode),
    probeErrorCause: decodeUpstreamCause(c.probeErrorCause),
    charset: str(c.charset),
    charsetFrom: oneOf(c.charsetFrom, ['bom', 'content-type', 'document', 'default']),
    setsSessionId: c.setsSessionId === true,
    concurrency: num(c.concurrency),
    concurrencyLimit: num(c.concurrencyLimit),
    largestAnswerBytes: num(c.largestAnswerBytes),
    compressed: c.compressed === true,
    datesZone: str(c.datesZone),
    zoneFrom: oneOf(c.zoneFrom, ['configured', 'dates', 'none']),
    pollSeconds: num(c.pollSeconds),
    lastRoundMs: num(c.lastRoundMs),
  };
}

export function decodeServices(data: Record<string, unknown>): ServiceInfo[] {
  const list = Array.isArray(data.services) ? (data.services as unknown[]) : [];
  return list.flatMap((value) => {
    if (value === null || typeof value !== 'object') return [];
    const s = value as Record<string, unknown>;
    const id = str(s.id);
    if (!id) return [];
    return [
      {
        id,
        name: str(s.name) || id,
        label: str(s.label),
        color: str(s.color),
        embedded: s.embedded === true,
        reachable: s.reachable !== false,
        version: str(s.version),
        checkedAt: str(s.checkedAt),
        since: str(s.since),
        message: str(s.message),
        code: num(s.code),
        cause: decodeUpstreamCause(s.cause),
        indexedAt: str(s.indexedAt),
        indexError: str(s.indexError),
        indexErrorCode: num(s.indexErrorCode),
        indexErrorCause: decodeUpstreamCause(s.indexErrorCause),
        timeZone: str(s.timeZone),
        utcOffsetMinutes: num(s.utcOffsetMinutes),
        zoneName: str(s.zoneName),
        capabilities: s.embedded === true ? undefined : decodeCapabilities(s.capabilities),
        statuses: decodeStatusSemantics(s.statuses, s.embedded === true),
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
