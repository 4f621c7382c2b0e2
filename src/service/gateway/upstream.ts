import {
  API_KEY_HEADER,
  ErrorCode,
  OPERATIONS,
  upstreamSentence,
  xmlToTree,
  type OperationName,
  type TreeObject,
  type UpstreamCause,
  type UpstreamFailure,
} from '../../kit/index.ts';
import { TextDecoder } from 'node:util';
import { chooseCharset, SNIFF_BYTES } from '../../kit/charset.ts';
import { ApiError } from '../errors.ts';
import { CallLimiter, retryAfterMs } from './limiter.ts';
import { UNPROBED, type ListPaging } from './paging.ts';
import type { IndexPoller } from './poller.ts';
import { Redactor } from './redactor.ts';
import type { UpstreamEntry } from './services.ts';
import { XmlStreamError, XmlTreeStream, type RecordStream } from './xml-stream.ts';

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

/** Bytes of a refusal's body read for its words: the rest is not worth holding. */
const REFUSAL_BYTES = 64 * 1024;

/** Calls refused 503/429 are tried this many times in all before the refusal is passed on. */
const BUSY_ATTEMPTS = 3;

/** How an upstream is called: bounds of time, size and concurrency, and what to hide. */
export interface UpstreamOptions {
  readonly timeoutMs?: number;
  /** Largest answer read; a larger one is refused with 502 naming the service and size. */
  readonly maxBytes?: number;
  /** Calls at once to this upstream. */
  readonly concurrency?: number;
  /** Secrets cut out of everything the upstream says (every configured upstream key). */
  readonly redactor?: Redactor;
}

/** What the gateway has seen of how an upstream answers (beside what the poller probes). */
export interface WireFacts {
  /** The charset its last answer was read in, and where that was stated. */
  readonly charset: string | null;
  readonly charsetFrom: string | null;
  /** Whether it sets a SESSIONID cookie (kept on the server, sent back, never passed on). */
  readonly setsSessionId: boolean;
  /** The calls at once it took before refusing with 503/429, once it did. */
  readonly concurrencyLimit: number | null;
  readonly concurrency: number;
  /** Its largest answer so far, in bytes. */
  readonly largestAnswerBytes: number;
  /** Whether it compressed an answer. */
  readonly compressed: boolean;
}

const MIB = 1024 * 1024;

/**
 * A failure of the service behind the gateway, its cause kept in data beside its English
 * sentence (kit/upstream-failure.ts): the services list gives both, so that the dashboard
 * words ours in its user's language and never takes a service's words for ours.
 */
export class UpstreamError extends ApiError {
  constructor(
    httpStatus: number,
    code: number,
    message: string,
    readonly failure: UpstreamFailure,
  ) {
    super(httpStatus, code, message);
  }
}

/** The code and cause of an error that is a failure of a service behind the gateway, else null. */
export function upstreamFailureOf(error: unknown): UpstreamFailure | null {
  return error instanceof UpstreamError ? error.failure : null;
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
 * contract's errors carrying its own words (with every secret cut out), never a 500 and
 * never a hang past the timeout. Answers are read as a stream, decoded by the charset they
 * state and bounded in size; at most `concurrency` calls go at once, and a 503/429 is tried
 * again after its Retry-After. Node's fetch keeps connections alive between calls and
 * undoes gzip.
 */
export class Upstream {
  /** The poller keeping this service's request index, when the server keeps one. */
  poller: IndexPoller | undefined;
  /** How its lists page, as probed and as its answers showed since. */
  paging: ListPaging = UNPROBED;
  readonly redactor: Redactor;
  readonly limiter: CallLimiter;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private sessionId: string | undefined;
  private facts = {
    charset: null as string | null,
    charsetFrom: null as string | null,
    largestAnswerBytes: 0,
    compressed: false,
  };

  constructor(
    readonly entry: UpstreamEntry,
    options: UpstreamOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.maxBytes = options.maxBytes ?? 256 * MIB;
    this.limiter = new CallLimiter(options.concurrency ?? 4);
    this.redactor = options.redactor ?? new Redactor([entry.apiKey]);
  }

  get name(): string {
    return this.entry.name;
  }

  /** The zone its request dates carry (`JST`, `+09:00`), null when they carry none. */
  datesZone: string | null | undefined = undefined;

  /**
   * Told when a call shows whether it answers at all: false (with why) when it could not be
   * reached or did not answer in time, true when a call succeeded. The directory learns of a
   * stopped upstream from the first call that meets it, not at its next 30 s check.
   */
  onReach:
    | ((reachable: boolean, message: string | null, failure: UpstreamFailure | null) => void)
    | undefined;

  learnDatesZone(zone: string | null): void {
    this.datesZone = zone;
  }

  /** What an answer just showed of its paging (e.g. more rows than asked). */
  learnPaging(facts: Partial<ListPaging>): void {
    this.paging = { ...this.paging, ...facts };
  }

  /**
   * The error of a failure of this service: its sentence written from its cause, both with
   * every secret cut out.
   */
  private fail(httpStatus: number, code: number, cause: UpstreamCause): UpstreamError {
    const redacted = Object.fromEntries(
      Object.entries(cause).map(([key, value]) => [
        key,
        typeof value === 'string' && key !== 'kind' ? this.redactor.redact(value) : value,
      ]),
    ) as unknown as UpstreamCause;
    return new UpstreamError(
      httpStatus,
      code,
      this.redactor.redact(upstreamSentence(this.name, redacted)),
      { code, cause: redacted },
    );
  }

  wireFacts(): WireFacts {
    return {
      ...this.facts,
      setsSessionId: this.sessionId !== undefined,
      concurrencyLimit: this.limiter.learnedLimit ?? null,
      concurrency: this.limiter.limit,
    };
  }

  /**
   * Calls one operation and returns its answer's tree; throws ApiError on any failure.
   * With `records`, the repeated records under that parent are handed over one by one as
   * they are read and left out of the tree.
   */
  async call(
    operation: OperationName,
    fields: Readonly<Record<string, string | undefined>>,
    records?: RecordStream,
  ): Promise<TreeObject> {
    const deadline = Date.now() + this.timeoutMs;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.limiter.run(
        async (): Promise<
          { tree: TreeObject } | { busy: { response: Response; controller: AbortController } }
        > => {
          const atOnce = this.limiter.active;
          const answer = await this.send(operation, fields, deadline);
          // A 503 that names no time to come back is a failure, not a queue.
          const { status, headers } = answer.response;
          const busy = status === 429 || (status === 503 && headers.has('retry-after'));
          if (!busy) {
            try {
              return { tree: await this.read(operation, answer, records) };
            } finally {
              // Read or refused: the time bound has nothing left to cut.
              clearTimeout(answer.timer);
            }
          }
          this.limiter.refused(atOnce);
          return { busy: answer };
        },
      );
      if ('tree' in outcome) {
        this.onReach?.(true, null, null);
        return outcome.tree;
      }
      const { response, controller } = outcome.busy;
      const waitMs = retryAfterMs(response.headers.get('retry-after'), Date.now()) ?? 1000;
      if (attempt >= BUSY_ATTEMPTS || Date.now() + waitMs >= deadline) {
        const words = await this.refusalWords(response, controller);
        throw this.fail(502, ErrorCode.UpstreamFailed, {
          kind: 'busy',
          httpStatus: response.status,
          attempts: attempt,
          words,
        });
      }
      controller.abort();
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }

  private async send(
    operation: OperationName,
    fields: Readonly<Record<string, string | undefined>>,
    deadline: number,
  ): Promise<{ response: Response; controller: AbortController; timer: NodeJS.Timeout }> {
    const method = OPERATIONS[operation];
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(fields))
      if (value !== undefined) form.append(name, value);
    const hasBody = method === 'POST' || method === 'PUT';
    const query = !hasBody && form.size > 0 ? `?${form.toString()}` : '';
    const url = `${this.entry.url}/pipelineapi/${operation}/xml${query}`;
    // One controller for the call and its body: the time bound covers reading the answer.
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DOMException('', 'TimeoutError')),
      deadline - Date.now(),
    );
    timer.unref();
    controller.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
    try {
      const response = await fetch(url, {
        method,
        headers: {
          [API_KEY_HEADER]: this.entry.apiKey,
          ...(this.sessionId ? { Cookie: `SESSIONID=${this.sessionId}` } : {}),
          ...(hasBody
            ? { 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' }
            : {}),
        },
        ...(hasBody ? { body: form.toString() } : {}),
        redirect: 'manual',
        signal: controller.signal,
      });
      this.keepSession(response);
      return { response, controller, timer };
    } catch (error) {
      clearTimeout(timer);
      throw this.failure(error, controller, 'cannot be reached');
    }
  }

  /** A SESSIONID the upstream set: sent back on later calls, and never passed on. */
  private keepSession(response: Response): void {
    for (const cookie of response.headers.getSetCookie()) {
      const value = /^\s*SESSIONID=([^;]*)/i.exec(cookie)?.[1];
      if (value) {
        this.sessionId = value;
        this.redactor.add(value);
      }
    }
  }

  private failure(
    error: unknown,
    controller: AbortController,
    doing: 'cannot be reached' | 'stopped answering midway',
  ): ApiError {
    if (error instanceof ApiError) return error;
    const cause = error as Error & { cause?: { code?: string; message?: string } };
    const timedOut =
      (controller.signal.reason as Error | undefined)?.name === 'TimeoutError' ||
      cause.name === 'TimeoutError';
    const failed = timedOut
      ? this.fail(504, ErrorCode.UpstreamTimeout, {
          kind: 'timeout',
          seconds: this.timeoutMs / 1000,
        })
      : doing === 'stopped answering midway'
        ? this.fail(504, ErrorCode.UpstreamTimeout, { kind: 'midway' })
        : this.fail(502, ErrorCode.UpstreamFailed, {
            kind: 'unreachable',
            error: cause.cause?.code ?? cause.cause?.message ?? cause.message,
          });
    this.onReach?.(false, failed.message, failed.failure);
    return failed;
  }

  /**
   * The answer's bytes as decoded, redacted text chunks, bounded by `limit` bytes: beyond it
   * the answer is refused (`bounded`) or cut (a refusal's words need no more).
   */
  private async *textOf(
    response: Response,
    controller: AbortController,
    limit: number,
    beyond: 'refuse' | 'cut',
  ): AsyncGenerator<string> {
    const declared = Number(response.headers.get('content-length'));
    if (beyond === 'refuse' && declared > limit) {
      controller.abort();
      throw this.tooLarge(declared, true);
    }
    if (response.headers.get('content-encoding')) this.facts.compressed = true;
    const reader = response.body?.getReader();
    if (!reader) return;
    const redacting = this.redactor.stream();
    let decoder: TextDecoder | undefined;
    let head: Uint8Array = new Uint8Array(0);
    let bytes = 0;
    const contentType = response.headers.get('content-type') ?? '';
    try {
      for (;;) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          throw this.failure(error, controller, 'stopped answering midway');
        }
        if (chunk.done) break;
        bytes += chunk.value.length;
        if (bytes > limit) {
          controller.abort();
          if (beyond === 'refuse') throw this.tooLarge(bytes, false);
          break;
        }
        let piece: Uint8Array = chunk.value;
        if (!decoder) {
          // The charset is stated in the first bytes, if at all: wait for enough of them.
          head = concat(head, piece);
          if (head.length < SNIFF_BYTES) continue;
          decoder = this.decoderFor(contentType, head);
          piece = head;
        }
        const text = redacting.push(decoder.decode(piece, { stream: true }));
        if (text) yield text;
      }
      // A short answer is still all in `head`; a long one has its decoder's tail to flush.
      const last = decoder ? decoder.decode() : this.decoderFor(contentType, head).decode(head);
      const tail = redacting.push(last);
      if (tail) yield tail;
      const rest = redacting.flush();
      if (rest) yield rest;
    } finally {
      this.facts.largestAnswerBytes = Math.max(this.facts.largestAnswerBytes, bytes);
      reader.releaseLock();
    }
  }

  private decoderFor(contentType: string, head: Uint8Array): TextDecoder {
    const chosen = chooseCharset(contentType, head);
    this.facts.charset = chosen.charset;
    this.facts.charsetFrom = chosen.from;
    return new TextDecoder(chosen.charset);
  }

  private tooLarge(bytes: number, declared: boolean): ApiError {
    return this.fail(502, ErrorCode.UpstreamFailed, {
      kind: 'tooLarge',
      mebibytes: Math.round((bytes / MIB) * 10) / 10,
      declared,
      boundMebibytes: this.maxBytes / MIB,
    });
  }

  /** A refusal's readable words (its first 64 KiB), redacted. */
  private async refusalWords(response: Response, controller: AbortController): Promise<string> {
    let body = '';
    try {
      for await (const text of this.textOf(response, controller, REFUSAL_BYTES, 'cut'))
        body += text;
    } catch {
      // Words are a courtesy: a refusal cut off midway is still a refusal.
    }
    return wordsOf(body);
  }

  private async read(
    operation: OperationName,
    answer: { response: Response; controller: AbortController },
    records: RecordStream | undefined,
  ): Promise<TreeObject> {
    const { response, controller } = answer;
    const status = response.status;
    const failed = (httpStatus: number, code: number, message: string) =>
      new ApiError(httpStatus, code, this.redactor.redact(message));
    if (status >= 300 && status < 400) {
      controller.abort();
      throw this.fail(502, ErrorCode.UpstreamFailed, {
        kind: 'redirect',
        httpStatus: status,
        location: response.headers.get('location') ?? '',
      });
    }
    if (status >= 400) {
      let body = '';
      try {
        for await (const text of this.textOf(response, controller, REFUSAL_BYTES, 'cut'))
          body += text;
      } catch {
        // As above: the status alone still says what happened.
      }
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
        throw this.fail(502, ErrorCode.UpstreamFailed, {
          kind: 'keyRefused',
          httpStatus: status,
          words: upstreamMessage,
        });
      if (status >= 500)
        throw this.fail(502, ErrorCode.UpstreamFailed, {
          kind: 'failed',
          httpStatus: status,
          words: upstreamMessage,
        });
      const code =
        status === 404
          ? notFoundCode(operation)
          : status === 405
            ? ErrorCode.MethodNotAllowed
            : status === 409
              ? ErrorCode.StateConflict
              : ErrorCode.BadParameter;
      const httpStatus = status === 404 || status === 405 || status === 409 ? status : 400;
      // Its own words are passed on as they are; without any, the gateway says what it saw.
      if (upstreamMessage) throw failed(httpStatus, code, upstreamMessage);
      throw this.fail(httpStatus, code, { kind: 'refused', httpStatus: status });
    }
    const stream = new XmlTreeStream(records);
    let seen = '';
    let tree: TreeObject;
    try {
      for await (const text of this.textOf(response, controller, this.maxBytes, 'refuse')) {
        if (seen.length < 200) seen += text.slice(0, 200);
        stream.write(text);
      }
      tree = stream.close();
    } catch (error) {
      controller.abort();
      if (!(error instanceof XmlStreamError)) throw error;
      throw this.fail(
        502,
        ErrorCode.UpstreamFailed,
        /^\s*</.test(seen)
          ? { kind: 'unreadableXml', detail: error.message.slice(0, 120) }
          : { kind: 'notXml', start: wordsOf(seen).slice(0, 80) },
      );
    }
    const execute = tree.ExecuteResponse;
    if (execute && typeof execute === 'object' && !Array.isArray(execute)) {
      if (execute.Status !== 'OK') {
        // A refusal inside a 2xx answer: the matching 4xx, with the service's own words.
        const words = String(execute.Message ?? '');
        if (execute.Status === 'SystemError')
          throw this.fail(502, ErrorCode.UpstreamFailed, {
            kind: 'failed',
            httpStatus: null,
            words,
          });
        const [httpStatus, code] = CHANGES.has(operation)
          ? [409, ErrorCode.StateConflict]
          : [400, ErrorCode.BadParameter];
        throw words
          ? failed(httpStatus, code, words)
          : this.fail(httpStatus, code, { kind: 'refused', httpStatus: null });
      }
    }
    return tree;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
