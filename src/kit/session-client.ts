import { HttpError, ParseError } from './errors.ts';
import {
  Transport,
  type CallOptions,
  type Method,
  type RawResponse,
  type RequestData,
  type TransportOptions,
} from './transport.ts';
import { xmlToTree } from './tree.ts';

// What the Part A (management console) and Part B (flow service) clients share: a session
// carried in a header, and an envelope (`result`: status, code, message, data) read into
// its data or an HttpError.

/**
 * The data of a Part A or Part B envelope that says success, or an HttpError with the code
 * (as each Part writes it) and the service's message.
 */
function envelopeData(
  raw: RawResponse,
  result: Record<string, unknown> | undefined,
  code: number | undefined,
): Record<string, unknown> {
  if (raw.status >= 400 || result?.status !== 'success') {
    const message = typeof result?.message === 'string' ? result.message : undefined;
    throw new HttpError(raw.status, raw.method, raw.url, code, message, raw.body);
  }
  return (result.data ?? {}) as Record<string, unknown>;
}

/** Reads a Part A envelope (JSON): the data of a success, or an HttpError carrying code and message. */
export function partAData(raw: RawResponse): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.body);
  } catch {
    if (raw.status >= 400)
      throw new HttpError(raw.status, raw.method, raw.url, undefined, undefined, raw.body);
    throw new ParseError(`${raw.method} ${raw.url}: not JSON`, raw.body);
  }
  const result = (parsed as { result?: Record<string, unknown> } | null)?.result;
  const code = typeof result?.code === 'number' ? result.code : undefined;
  return envelopeData(raw, result, code);
}

/** Reads a Part B envelope (XML): the data of a success, or an HttpError carrying code and message. */
export function partBData(raw: RawResponse): Record<string, unknown> {
  let result: Record<string, unknown> | undefined;
  try {
    result = xmlToTree(raw.body).result as Record<string, unknown> | undefined;
  } catch {
    result = undefined;
  }
  // XML carries the code as text.
  const code = result && /^\d+$/.test(String(result.code)) ? Number(result.code) : undefined;
  return envelopeData(raw, result, code);
}

export type SessionClientOptions = TransportOptions & { sessionId?: string };

/** How a Part speaks: its path prefix, the header its session goes in, its envelope. */
export interface SessionDialect {
  readonly prefix: string;
  readonly header: string;
  readonly dataOf: (raw: RawResponse) => Record<string, unknown>;
}

/** Calls that carry the session in its Part's header and answer the envelope's data. */
export abstract class SessionClient {
  private readonly transport: Transport;
  /** The current session id, set by login (or given, to resume a stored session). */
  sessionId: string | undefined;

  constructor(
    protected readonly options: SessionClientOptions,
    private readonly dialect: SessionDialect,
  ) {
    this.transport = new Transport(options);
    this.sessionId = options.sessionId;
  }

  protected async call(
    method: Method,
    path: string,
    data?: RequestData,
    options: CallOptions = {},
  ): Promise<Record<string, unknown>> {
    const { prefix, header, dataOf } = this.dialect;
    const headers: Record<string, string> = this.sessionId ? { [header]: this.sessionId } : {};
    return dataOf(await this.transport.send(method, `${prefix}${path}`, data, headers, options));
  }
}
