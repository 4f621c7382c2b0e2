import type { UpstreamCause } from '../../kit/index.ts';
import type { ListPaging } from './paging.ts';
import type { IndexPoller } from './poller.ts';
import type { StatusesState, StatusSemantics } from './status-semantics.ts';
import type { Upstream, WireFacts } from './upstream.ts';

// The services a handler may reach through its context (context.ts), as types alone: the
// directory that checks and routes them is directory.ts.

/** What the server knows of one service it answers for (`GET /mcapi/services`). */
export interface ServiceState {
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
   * The message's cause in data when the sentence is the gateway's own (kit/upstream-failure.ts);
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
  /** The zone abbreviation its own dates carry (e.g. JST), '' while unknown. */
  readonly zoneName: string;
  /** What the gateway learnt of how an upstream answers (contract section 12). */
  readonly capabilities?: Capabilities;
  /** What its status words mean, with what the upstream refused (docs/gateway.md "Status words"). */
  readonly statuses: StatusesState;
}

/** How an upstream answers, as probed and as seen: every paging and reading decision's facts. */
export interface Capabilities extends ListPaging, WireFacts {
  /** The zone its request dates carry, null when they carry none, undefined before a list. */
  readonly datesZone: string | null;
  /**
   * Where its zone comes from: the configuration, its own dates, or none (its clock is then
   * inferred from new requests' begin times, and the Services page says so).
   */
  readonly zoneFrom: 'configured' | 'dates' | 'none';
  /** Seconds the poller now waits between rounds (adapted to their cost), and the last round's ms. */
  readonly pollSeconds: number | null;
  readonly lastRoundMs: number | null;
}

/** One service as Part C routes reach it: the embedded engine, or an upstream. */
export interface ServiceRoute {
  readonly id: string;
  readonly upstream: Upstream | undefined;
}

/** The services of this server in their order: the first answers plain /pipelineapi. */
export interface Services {
  readonly routes: readonly ServiceRoute[];
  /** Whether one of them is the embedded engine. */
  readonly hasEmbedded: boolean;
  route(id: string): ServiceRoute | undefined;
  /** What the server knows of each (`GET /mcapi/services`). */
  list(): ServiceState[];
  /** A service's status words as the server acts on them. */
  statusesOf(id: string): StatusSemantics;
  /** The request index's poller of each upstream that has one. */
  pollers(): IndexPoller[];
  /** Checks every upstream now (the directory does every 30 s). */
  checkAll(): Promise<void>;
}
