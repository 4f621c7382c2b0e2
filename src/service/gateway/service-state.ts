import type { CapabilitiesAnswer, ServiceAnswer } from '../../kit/index.ts';
import type { IndexPoller } from './poller.ts';
import type { StatusSemantics } from './status-semantics.ts';
import type { Upstream } from './upstream.ts';

// The services a handler may reach through its context (context.ts), as types alone: the
// directory that checks and routes them is directory.ts.

/**
 * What the server knows of one service it answers for (`GET /mcapi/services`): the kit's
 * answer less the caller's role, which each answer adds.
 */
export type ServiceState = Omit<ServiceAnswer, 'role'>;

/**
 * How an upstream answers, as probed and as seen: every paging and reading decision's facts
 * (ListPaging of paging.ts, WireFacts of upstream.ts), its zone and the poller's pace.
 */
export type Capabilities = CapabilitiesAnswer;

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
