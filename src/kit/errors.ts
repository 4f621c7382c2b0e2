/** Base of every error the kit throws; `name` tells them apart without instanceof. */
export class PipelineKitError extends Error {
  override name = 'PipelineKitError';
}

/**
 * The service answered with an error status, or refused inside a 2xx answer (an
 * ExecuteResponse whose Status is not OK, as a vendor service may). `code` and
 * `serviceMessage` come from the error body (Part C ExecuteResponse, Part A envelope or
 * Part B result) when it had one.
 *
 * @example
 * try { await client.resume('pl_9'); }
 * catch (e) { if (e instanceof HttpError && e.code === 1201) console.log('no such pipeline'); }
 */
export class HttpError extends PipelineKitError {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    readonly method: string,
    readonly url: string,
    readonly code: number | undefined,
    readonly serviceMessage: string | undefined,
    readonly body: string,
  ) {
    super(
      `${method} ${url} ${status < 400 ? `was refused (${status})` : `failed with ${status}`}${code !== undefined ? ` (code ${code})` : ''}${serviceMessage ? `: ${serviceMessage}` : ''}`,
    );
  }
}

/** The request never got an answer (connection refused, DNS, reset). */
export class NetworkError extends PipelineKitError {
  override name = 'NetworkError';
  constructor(
    readonly method: string,
    readonly url: string,
    override readonly cause: unknown,
  ) {
    super(
      `${method} ${url} could not reach the service: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
  }
}

/** No answer within the client's timeout. */
export class TimeoutError extends PipelineKitError {
  override name = 'TimeoutError';
  constructor(
    readonly method: string,
    readonly url: string,
    readonly timeoutMs: number,
  ) {
    super(`${method} ${url} got no answer within ${timeoutMs} ms`);
  }
}

/** The answer could not be decoded into the expected record. */
export class ParseError extends PipelineKitError {
  override name = 'ParseError';
  constructor(
    message: string,
    readonly body: string,
  ) {
    super(message);
  }
}
