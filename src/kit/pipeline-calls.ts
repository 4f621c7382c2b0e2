import { PipelineResult } from './result.ts';
import {
  Transport,
  type CallArgs,
  type Method,
  type RequestData,
  type TransportOptions,
} from './transport.ts';
import { API_KEY_HEADER, MC_SESSION_HEADER } from './wire.ts';

// The pipeline API's calls as they go on the wire: where, with which credentials, and the
// answer as a PipelineResult. The typed operations (client.ts), bulk (bulk.ts) and
// following a request (follow.ts) are built on these.

/** How calls authenticate. */
export type Credentials =
  | { readonly kind: 'apiKey'; readonly apiKey: string }
  /** A management console session (Part A login); roles apply. */
  | { readonly kind: 'session'; readonly sessionId: string }
  /** Only the SESSIONID cookie the browser already holds. */
  | { readonly kind: 'cookie' }
  | { readonly kind: 'none' };

export interface ClientOptions extends TransportOptions {
  /** The API key issued by the pipeline service (sent as X-Pipelinewebapi). */
  readonly apiKey?: string;
  /** Other credentials; apiKey is the short form of `{ kind: 'apiKey' }`. */
  readonly credentials?: Credentials;
}

const apiPath = (path: string) => `/pipelineapi${path.startsWith('/') ? path : `/${path}`}`;

/**
 * Untyped calls of the pipeline API (Part C) with the client's credentials: what
 * PipelineClient's typed operations send through.
 *
 * @example
 * const result = await client.get('/requestlist/json', { date: '20261121' }, undefined, { signal });
 */
export class PipelineCalls {
  private readonly transport: Transport;
  private credentials: Credentials;

  constructor(options: ClientOptions = {}) {
    this.transport = new Transport(options);
    this.credentials =
      options.credentials ??
      (options.apiKey ? { kind: 'apiKey', apiKey: options.apiKey } : { kind: 'none' });
  }

  /** Switches credentials, e.g. after a sign-in. @example client.useCredentials({ kind: 'session', sessionId }) */
  useCredentials(credentials: Credentials): void {
    this.credentials = credentials;
  }

  /** The credentials in use. */
  get currentCredentials(): Credentials {
    return this.credentials;
  }

  /** The full URL of a call, e.g. for "copy as curl". @example client.urlOf('/list/xml') */
  urlOf(path: string, data?: RequestData, method: Method = 'GET'): string {
    return this.transport.urlOf(apiPath(path), data, method);
  }

  /** Headers the current credentials add. @example client.authHeaders() // { 'X-Pipelinewebapi': '…' } */
  authHeaders(): Record<string, string> {
    switch (this.credentials.kind) {
      case 'apiKey':
        return { [API_KEY_HEADER]: this.credentials.apiKey };
      case 'session':
        return { [MC_SESSION_HEADER]: this.credentials.sessionId };
      default:
        return {};
    }
  }

  /** Sends one call; `path` is `/<api>/<type>` as in the spec. @example await client.request('GET', '/list/xml') */
  async request(
    method: Method,
    ...[path, data, headers, options]: CallArgs
  ): Promise<PipelineResult> {
    const auth = { ...this.authHeaders(), ...headers };
    const raw = await this.transport.send(method, apiPath(path), data, auth, options);
    return new PipelineResult(raw.status, raw.contentType, raw.body, raw.method, raw.url);
  }

  /** @example await client.get('/requestlist/json', { date: '20261121' }) */
  get(...call: CallArgs): Promise<PipelineResult> {
    return this.request('GET', ...call);
  }
  /** @example await client.post('/exec/xml', { pipelineid: 'pl_1', filename: 'orders.csv' }) */
  post(...call: CallArgs): Promise<PipelineResult> {
    return this.request('POST', ...call);
  }
  /** @example await client.put('/resume/xml', { pipelineid: 'pl_1' }) */
  put(...call: CallArgs): Promise<PipelineResult> {
    return this.request('PUT', ...call);
  }
  /** @example await client.delete('/requestcancel/xml', { requestid: 'pl_1-20261121_09-000001' }) */
  delete(...call: CallArgs): Promise<PipelineResult> {
    return this.request('DELETE', ...call);
  }
}
