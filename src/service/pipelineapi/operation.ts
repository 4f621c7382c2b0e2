import type { RootName } from '../../kit/wire.ts';
import type { ServiceContext } from '../context.ts';
import type { Upstream } from '../gateway/upstream.ts';
import type { Document } from '../render/document.ts';
import type { Params } from './params.ts';

/*
 * One Part C operation in one module (operations/<name>.ts): its parameters, its answer on
 * the embedded engine, its answer through an upstream and its OpenAPI entry. The table in
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

export interface OperationModule {
  readonly embedded: EmbeddedAnswer;
  readonly upstream: UpstreamAnswer;
  readonly openapi: OperationEntry;
}
