import {
  API_KEY_HEADER,
  ErrorCode,
  OPERATIONS,
  xmlToTree,
  type OperationName,
  type TreeObject,
} from '../../kit/index.ts';
import { ApiError } from '../errors.ts';
import type { IndexPoller } from './poller.ts';
import type { UpstreamEntry } from './services.ts';

/**
 * Rows asked of an upstream for one list or table page: its pages have no `index`, so the
 * gateway asks for this many at once and pages them itself. Deeper rows are out of reach.
 */
export const UPSTREAM_PAGE_BOUND = 1000;

/** Operations that change something: a refusal of theirs is a state conflict. */
const CHANGES = new Set<OperationName>(
  (Object.keys(OPERATIONS) as OperationName[]).filter((op) => OPERATIONS[op] !== 'GET'),
);

/** The Part C code of a "not found" for each operation's object. */
function notFoundCode(operation: OperationName): number {
  if (operation.startsWith('request')) return ErrorCode.RequestNotFound;
  if (operation.endsWith('db') || operation.endsWith('table')) return ErrorCode.TableNotFound;
  if (operation === 'list' || operation === 'version' || operation === 'inbox')
    return ErrorCode.UnknownApi;
  return ErrorCode.PipelineNotFound;
}

/** The readable words of a body that is not ours to parse: text, or HTML without its tags. */
function wordsOf(body: string): string {
  const text = body
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/**
 * One pipeline service behind the gateway, spoken to as interfaces.md alone describes it:
 * XML, the seed's key header, no extensions. Every way it can fail becomes one of our
 * contract's errors carrying its own words, never a 500 and never a hang past the timeout.
 * Node's fetch keeps connections alive between calls.
 */
export class Upstream {
  /** The poller keeping this service's request index, when the server keeps one. */
  poller: IndexPoller | undefined;

  constructor(
    readonly entry: UpstreamEntry,
    private readonly timeoutMs = 15_000,
  ) {}

  get name(): string {
    return this.entry.name;
  }

  /** Calls one operation and returns its answer's tree; throws ApiError on any failure. */
  async call(
    operation: OperationName,
    fields: Readonly<Record<string, string | undefined>>,
  ): Promise<TreeObject> {
    const method = OPERATIONS[operation];
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(fields))
      if (value !== undefined) form.append(name, value);
    const hasBody = method === 'POST' || method === 'PUT';
    const query = !hasBody && form.size > 0 ? `?${form.toString()}` : '';
    const url = `${this.entry.url}/pipelineapi/${operation}/xml${query}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          [API_KEY_HEADER]: this.entry.apiKey,
          ...(hasBody
            ? { 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' }
            : {}),
        },
        ...(hasBody ? { body: form.toString() } : {}),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const cause = error as Error & { cause?: { code?: string; message?: string } };
      if (cause.name === 'TimeoutError' || cause.name === 'AbortError')
        throw new ApiError(
          504,
          ErrorCode.UpstreamTimeout,
          `Service ${this.name} did not answer within ${this.timeoutMs / 1000} s.`,
        );
      throw new ApiError(
        502,
        ErrorCode.UpstreamFailed,
        `Service ${this.name} cannot be reached (${cause.cause?.code ?? cause.cause?.message ?? cause.message}).`,
      );
    }
    let body: string;
    try {
      body = await response.text();
    } catch {
      throw new ApiError(
        504,
        ErrorCode.UpstreamTimeout,
        `Service ${this.name} stopped answering midway.`,
      );
    }
    return this.read(operation, response, body);
  }

  private read(operation: OperationName, response: Response, body: string): TreeObject {
    const status = response.status;
    const failed = (httpStatus: number, code: number, message: string) =>
      new ApiError(httpStatus, code, message);
    if (status >= 300 && status < 400)
      throw failed(
        502,
        ErrorCode.UpstreamFailed,
        `Service ${this.name} answered with a redirect (HTTP ${status}${response.headers.get('location') ? ` to ${response.headers.get('location')}` : ''}).`,
      );
    let tree: TreeObject | undefined;
    try {
      tree = xmlToTree(body);
    } catch {
      tree = undefined;
    }
    const execute = tree?.ExecuteResponse;
    const upstreamMessage =
      execute && typeof execute === 'object' && !Array.isArray(execute)
        ? String(execute.Message ?? '')
        : wordsOf(body);
    if (status === 401 || status === 403)
      throw failed(
        502,
        ErrorCode.UpstreamFailed,
        `Service ${this.name} refused the gateway's key (HTTP ${status})${upstreamMessage ? `: ${upstreamMessage}` : '.'}`,
      );
    if (status >= 500)
      throw failed(
        502,
        ErrorCode.UpstreamFailed,
        `Service ${this.name} failed (HTTP ${status})${upstreamMessage ? `: ${upstreamMessage}` : '.'}`,
      );
    if (status >= 400) {
      const code =
        status === 404
          ? notFoundCode(operation)
          : status === 405
            ? ErrorCode.MethodNotAllowed
            : status === 409
              ? ErrorCode.StateConflict
              : ErrorCode.BadParameter;
      throw failed(
        status === 404 || status === 405 || status === 409 ? status : 400,
        code,
        upstreamMessage || `Service ${this.name} refused the call (HTTP ${status}).`,
      );
    }
    if (!tree || Object.keys(tree).length === 0)
      throw failed(
        502,
        ErrorCode.UpstreamFailed,
        `Service ${this.name} answered something that is not XML${body ? `: ${wordsOf(body).slice(0, 80)}` : ''}.`,
      );
    if (execute && typeof execute === 'object' && !Array.isArray(execute)) {
      if (execute.Status !== 'OK') {
        // A refusal inside a 2xx answer: the matching 4xx, with the service's own words.
        const message = upstreamMessage || `Service ${this.name} refused without a message.`;
        if (execute.Status === 'SystemError')
          throw failed(502, ErrorCode.UpstreamFailed, `Service ${this.name} failed: ${message}`);
        throw CHANGES.has(operation)
          ? failed(409, ErrorCode.StateConflict, message)
          : failed(400, ErrorCode.BadParameter, message);
      }
    }
    return tree;
  }
}
