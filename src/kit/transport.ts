import { SNIFF_BYTES, chooseCharset, decodeAnswer, knownCharset } from './charset.ts';
import { NetworkError, TimeoutError } from './errors.ts';

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export type RequestData = Readonly<Record<string, string | number | boolean | undefined>>;

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Where and how a client sends its calls. */
export interface TransportOptions {
  readonly host?: string;
  readonly port?: number;
  /** `https://host:port`; overrides host and port. Empty means the page's own origin. */
  readonly baseUrl?: string;
  /** Prefix before the API paths, for a service behind a proxy path (`/ops`). */
  readonly basePath?: string;
  readonly fetch?: FetchLike;
  /** Milliseconds before a call fails with TimeoutError (default 30000; 0 = never). */
  readonly timeoutMs?: number;
  /** Headers sent with every call. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * fetch's credentials mode (default `same-origin`). `omit` neither sends nor stores
   * cookies: a client that authenticates by header then never picks up a `SESSIONID`.
   */
  readonly credentialsMode?: 'omit' | 'same-origin' | 'include';
  /**
   * The charset of answers that state none (no BOM, Content-Type charset, XML declaration
   * or HTML meta), e.g. `shift_jis` for a service known to write it without saying so.
   * Default UTF-8. A stated charset always wins.
   */
  readonly charset?: string;
}

/** What a caller may add to one call. */
export interface CallOptions {
  /**
   * Cancels the call: it rejects with the signal's reason (not a kit error), and a signal
   * already aborted never reaches the service. The client's timeout still applies.
   */
  readonly signal?: AbortSignal | undefined;
}

/** What a caller may add to a call whose answer it reads itself (`Transport.open`). */
export interface OpenOptions extends CallOptions {
  /** fetch's redirect mode: `manual` hands a redirect back instead of following it. */
  readonly redirect?: 'follow' | 'manual' | 'error';
}

/**
 * What every call takes after its method: the path, the fields (a query for GET and DELETE,
 * a form body for POST and PUT), headers of its own, and what the caller adds.
 */
export type CallArgs<Options extends CallOptions = CallOptions> = [
  path: string,
  data?: RequestData,
  headers?: Readonly<Record<string, string>>,
  options?: Options,
];

export interface RawResponse {
  readonly status: number;
  readonly contentType: string;
  /** Decoded by the charset the answer states (TransportOptions.charset when none). */
  readonly body: string;
  readonly method: Method;
  readonly url: string;
}

/** Form-urlencodes fields, leaving out undefined ones. */
export function encodeForm(data: RequestData | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(data ?? {})) {
    if (value !== undefined) params.append(name, String(value));
  }
  return params.toString();
}

/**
 * The HTTP layer every client of the kit shares: fetch with a timeout, fields as a query
 * (GET, DELETE) or a form body (POST, PUT), typed network and timeout errors.
 */
export class Transport {
  readonly origin: string;
  private readonly fetchFn: FetchLike;

  private readonly fallbackCharset: string | undefined;

  constructor(private readonly options: TransportOptions = {}) {
    if (options.charset !== undefined) {
      this.fallbackCharset = knownCharset(options.charset);
      if (this.fallbackCharset === undefined)
        throw new RangeError(`charset ${options.charset} is not one this platform decodes`);
    }
    const host = options.host?.includes(':') ? `[${options.host}]` : options.host;
    const origin = options.baseUrl ?? (host ? `http://${host}:${options.port ?? 25080}` : '');
    this.origin = `${origin.replace(/\/$/, '')}${(options.basePath ?? '').replace(/\/$/, '')}`;
    this.fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  urlOf(path: string, data?: RequestData, method: Method = 'GET'): string {
    const query = method === 'GET' || method === 'DELETE' ? encodeForm(data) : '';
    return `${this.origin}${path}${query ? `${path.includes('?') ? '&' : '?'}${query}` : ''}`;
  }

  /**
   * Sends one call. A caller's `signal` cancels it, beside the timeout.
   * @example await transport.send('GET', '/mcapi/services', undefined, headers, { signal })
   */
  send(method: Method, ...call: CallArgs): Promise<RawResponse> {
    return this.call(method, call, async (response, url) => {
      const contentType = response.headers.get('content-type') ?? '';
      // Not response.text(): that is UTF-8 whatever the answer says, and a Japanese
      // product's Shift_JIS or EUC-JP refusal would reach the user as mojibake.
      const bytes = new Uint8Array(await response.arrayBuffer());
      const body = this.decode(contentType, bytes);
      return { status: response.status, contentType, body, method, url };
    });
  }

  /**
   * Sends one call as `send` does and hands back fetch's answer unread, for a caller that
   * reads a large body as a stream. The timeout bounds the wait for the answer's head; the
   * caller's `signal` bounds the body as well.
   */
  open(method: Method, ...call: CallArgs<OpenOptions>): Promise<Response> {
    return this.call(method, call, (response) => Promise.resolve(response));
  }

  /** One fetch with the kit's URL, form, headers, timeout and errors; `read` takes its answer. */
  private async call<T>(
    method: Method,
    [path, data, headers, options = {}]: CallArgs<OpenOptions>,
    read: (response: Response, url: string) => Promise<T>,
  ): Promise<T> {
    const url = this.urlOf(path, data, method);
    const hasBody = method === 'POST' || method === 'PUT';
    const timeoutMs = this.options.timeoutMs ?? 30_000;
    const callerSignal = options.signal;
    // A call cancelled before it starts is never sent.
    callerSignal?.throwIfAborted();
    const controller = new AbortController();
    const timer = timeoutMs > 0 ? setTimeout(() => controller.abort(), timeoutMs) : undefined;
    // AbortSignal.any is in every Node the kit supports (package.json engines, >= 20.19).
    const signal = callerSignal
      ? AbortSignal.any([callerSignal, controller.signal])
      : controller.signal;
    try {
      const response = await this.fetchFn(url, {
        method,
        headers: {
          ...(hasBody
            ? { 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' }
            : {}),
          ...this.options.headers,
          ...headers,
        },
        credentials: this.options.credentialsMode ?? 'same-origin',
        signal,
        ...(options.redirect ? { redirect: options.redirect } : {}),
        ...(hasBody ? { body: encodeForm(data) } : {}),
      });
      return await read(response, url);
    } catch (error) {
      // The caller's own cancellation is theirs to recognise: its reason, as fetch gives it.
      if (callerSignal?.aborted) throw callerSignal.reason;
      if (controller.signal.aborted) throw new TimeoutError(method, url, timeoutMs);
      throw new NetworkError(method, url, error);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }

  private decode(contentType: string, bytes: Uint8Array): string {
    if (this.fallbackCharset !== undefined) {
      // Whether the answer states a charset is told by its first bytes alone.
      const stated = chooseCharset(contentType, bytes.subarray(0, SNIFF_BYTES));
      if (stated.from === 'default') return new TextDecoder(this.fallbackCharset).decode(bytes);
    }
    return decodeAnswer(contentType, bytes);
  }
}
