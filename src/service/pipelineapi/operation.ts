import type { RootName } from '../../kit/wire.ts';
import type { ServiceContext } from '../context.ts';
import type { Upstream } from '../gateway/upstream.ts';
import type { Document } from '../render/document.ts';
import type { Params } from './params.ts';

/*
 * One Part C operation in one module (operations/<name>.ts): its parameters, its answer on
 * the embedded engine, its answer through an upstream, its OpenAPI entry and its sample
 * calls (render/vocabulary.test.ts answers them). The table in
 * operations/index.ts is a Record over wire.ts's OPERATIONS, so an operation added there
 * fails the type check until its module is in the table.
 */

/** The answer of the embedded engine. */
export type EmbeddedAnswer = (ctx: ServiceContext, params: Params) => Document | Promise<Document>;

/**
 * The answer for a service behind the gateway: it asks the upstream in interfaces.md's terms
 * and answers in our contract's, so the dashboard and the kit see one contract whatever
 * stands behind. What the upstream did not say is never invented.
 */
export type UpstreamAnswer = (upstream: Upstream, params: Params) => Promise<Document>;

/** A JSON Schema, as the OpenAPI document writes it. */
export type Schema = { readonly [keyword: string]: unknown };

/** A form field: in the query of a GET or DELETE, in the form body of a POST or PUT (either works). */
export interface Field {
  readonly name: string;
  readonly schema: Schema;
  readonly required?: boolean;
  readonly description?: string;
}

/** The operation in the OpenAPI document; the method, formats and errors come from wire.ts. */
export interface OperationEntry {
  readonly summary: string;
  readonly fields: readonly Field[];
  readonly root: RootName;
}

/** What an operation answers and how the OpenAPI document states it; families/ build these. */
export interface OperationAnswers {
  readonly embedded: EmbeddedAnswer;
  readonly upstream: UpstreamAnswer;
  readonly openapi: OperationEntry;
}

/**
 * What render/vocabulary.test.ts makes before it answers any sample, on a service with the
 * test pipelines (testing/pipelines.ts: pl_1 writes ORDERS, pl_2 writes EVENTS, pl_3 is
 * suspended) and pl_7, whose Args declare rules and which never has a request, and an inbox
 * holding orders.csv and events.jsonl. pl_2's request has a status outside the contract (Held).
 */
export interface SampleFixture {
  /** The day of the requests below (yyyymmdd). */
  readonly day: string;
  /** pl_1's request on orders.csv, ended in Finish. */
  readonly finished: string;
  /** pl_1's request on a file the inbox lacks, ended in Error. */
  readonly failed: string;
  /** pl_3's request on orders.csv, in Wait while pl_3 is suspended. */
  readonly waiting: string;
}

/** A sample call: its label in the test's messages, and its fields (none when absent). */
interface SampleCall {
  readonly label: string;
  readonly fields?: (fixture: SampleFixture) => Readonly<Record<string, string>>;
}

/**
 * A call answered on the embedded engine, whose answer the vocabulary test renders as XML,
 * JSON and HTML: the three must decode alike, and every element must be in the vocabulary.
 * Reads are answered first, on the fixture as it was made; then the changes, one at a time
 * with the engine idle between. A change relies on the fixture only, never on another
 * sample's change, so the order of the changes does not matter.
 */
export interface AnswerSample extends SampleCall {
  readonly phase: 'read' | 'change';
  readonly fails?: never;
}

/**
 * A call that must fail: its error document (the contract's section 3) is the sample.
 * It changes nothing, and is answered after every change.
 */
export interface ErrorSample extends SampleCall {
  readonly fails: true;
}

export type OperationSample = AnswerSample | ErrorSample;

/** A read sample: its label and, when it has any, its fields. */
export const readSample = (label: string, fields?: SampleCall['fields']): AnswerSample =>
  fields === undefined ? { label, phase: 'read' } : { label, phase: 'read', fields };

/**
 * An operation's module as OPERATION_MODULES holds it: its answers, its OpenAPI entry and its
 * samples, the first of which is an answer, so no operation goes without a sampled answer.
 */
export interface OperationModule extends OperationAnswers {
  readonly samples: readonly [AnswerSample, ...OperationSample[]];
}
