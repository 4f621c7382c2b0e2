import {
  API_KEY_HEADER,
  ErrorCode,
  HttpError,
  OPERATIONS,
  ParseError,
  upstreamSentence,
  xmlToTree,
  type CapabilitiesAnswer,
  type OperationName,
  type TreeObject,
  type UpstreamCause,
  type UpstreamFailure,
} from '../../kit/index.ts';
import { ApiError } from '../errors.ts';
import { answerText, cutText, type AnswersSeen, type AnswerTextOptions } from './answer-text.ts';
import { callFailure, wordsOf, type CallFacts, type CallFailure } from './call-failure.ts';
import { openAnswer } from './open-answer.ts';
import { CallLimiter, retryAfterMs } from './limiter.ts';
import { UNPROBED, type LearntList, type ListFacts, type ListPaging } from './paging.ts';

/** Lists whose facts an upstream keeps at most. */
const LISTS_KEPT = 256;
import { Redactor } from './redactor.ts';
import type { UpstreamEntry } from './services.ts';
import {
  XmlStreamError,
  XmlTreeStream,
  XmlValueTooLargeError,
  type RecordStream,
} from './xml-stream.ts';

/** Bytes of a refusal's body read for its words: the rest is not worth holding. */
const REFUSAL_BYTES = 64 * 1024;

/** Calls refused 503/429 are tried this many times in all before the refusal is passed on. */
const BUSY_ATTEMPTS = 3;

/** How an upstream is called: bounds of time, size and concurrency, and what to hide. */
export interface UpstreamOptions {
  readonly timeoutMs?: number;
  /** Largest answer read; a larger one is refused with 502 naming the service and size. */
  readonly maxBytes?: number;
  /**
   * Longest single value (an element's text, an attribute) read, in characters; a longer one
   * ends the read with 502 naming the service, the element and the size.
   */
  readonly maxValueChars?: number;
  /** Calls at once to this upstream. */
  readonly concurrency?: number;
  /** Secrets cut out of everything the upstream says (every configured upstream key). */
  readonly redactor?: Redactor;
}

/**
 * What the gateway has seen of how an upstream answers, beside what the poller probes: the
 * charset of its last answer and where that was stated, whether it sets a SESSIONID (kept on
 * the server, sent back, never passed on), the calls at once it took before refusing with
 * 503/429, its largest answer and whether it compressed one. As the services list tells it.
 */
export type WireFacts = Pick<
  CapabilitiesAnswer,
  | 'charset'
  | 'charsetFrom'
  | 'setsSessionId'
  | 'concurrencyLimit'
  | 'concurrency'
  | 'largestAnswerBytes'
  | 'compressed'
>;

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
  // `poller`, the poller keeping this service's request index, is declared by poller.ts:
  // the client below the poller does not import it.
  /** How its lists page, as probed and as its answers showed since. */
  paging: ListPaging = UNPROBED;
  readonly redactor: Redactor;
  readonly limiter: CallLimiter;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly maxValueChars: number;
  private sessionId: string | undefined;
  private readonly seen: AnswersSeen = {
    charset: null,
    charsetFrom: null,
    largestAnswerBytes: 0,
    compressed: false,
  };

  constructor(
    readonly entry: UpstreamEntry,
    options: UpstreamOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.maxBytes = options.maxBytes ?? 256 * MIB;
    this.maxValueChars = options.maxValueChars ?? MIB;
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

  /** What each list's own answers showed (paging.ts ListFacts), the latest learnt last. */
  private readonly lists = new Map<string, LearntList>();

  pagingOf(list: string): ListPaging {
    const own = this.lists.get(list);
    return {
      ...this.paging,
      cap: own?.cap ?? null,
      ...(own?.index === undefined ? {} : { index: own.index }),
      ...(own?.pagesize === undefined ? {} : { pagesize: own.pagesize }),
    };
  }

  learnList(list: string, facts: ListFacts, evidence: string): void {
    const before = this.lists.get(list);
    this.lists.delete(list);
    this.lists.set(list, {
      ...before,
      ...facts,
      list,
      learnedAt: new Date().toISOString(),
      evidence,
    });
    // Bounded: an upstream of many tables read once each does not grow this for ever.
    if (this.lists.size > LISTS_KEPT) this.lists.delete(this.lists.keys().next().value as string);
  }

  /**
   * Forgets every list's cap, at each probe: a cap read from a short answer may have been a
   * list of exactly that many rows, and a list read at its cap never shows more.
   */
  forgetListCaps(): void {
    for (const [list, learnt] of this.lists)
      if (learnt.cap != null) this.lists.set(list, { ...learnt, cap: null });
  }

  capsSeen(list: string): { list: string; cap: number }[] {
    return [...this.lists.values()].flatMap((learnt) =>
      learnt.list !== list && learnt.cap != null ? [{ list: learnt.list, cap: learnt.cap }] : [],
    );
  }

  /** Each list's facts with their evidence, for the Services page. */
  learntLists(): LearntList[] {
    return [...this.lists.values()];
  }

  /**
   * The error of a failed call: the service's own words passed on, or the gateway's
   * sentence written from its cause; both with every secret cut out.
   */
  private fail(failure: CallFailure): ApiError {
    const { httpStatus, code } = failure;
    if (!('cause' in failure))
      return new ApiError(httpStatus, code, this.redactor.redact(failure.words));
    const redacted = Object.fromEntries(
      Object.entries(failure.cause).map(([key, value]) => [
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
      ...this.seen,
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
        const text = await cutText(
          response,
          controller,
          this.textOptions(controller, operation, REFUSAL_BYTES, 'cut'),
        );
        const busy = new HttpError(
          response.status,
          OPERATIONS[operation],
          response.url,
          undefined,
          wordsOf(text),
          '',
        );
        throw this.fail(callFailure(busy, { ...this.facts(operation), attempts: attempt }));
      }
      controller.abort();
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }

  /** Sends one call, its answer unread (open-answer.ts), bounded by the call's deadline. */
  private async send(
    operation: OperationName,
    fields: Readonly<Record<string, string | undefined>>,
    deadline: number,
  ): Promise<{ response: Response; controller: AbortController; timer: NodeJS.Timeout }> {
    // One controller for the call and its body: the time bound covers reading the answer.
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DOMException('', 'TimeoutError')),
      deadline - Date.now(),
    );
    timer.unref();
    controller.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
    let response: Response;
    try {
      const headers = {
        [API_KEY_HEADER]: this.entry.apiKey,
        ...(this.sessionId ? { Cookie: `SESSIONID=${this.sessionId}` } : {}),
      };
      response = await openAnswer(this.entry.url, headers, operation, fields, controller.signal);
    } catch (error) {
      clearTimeout(timer);
      throw this.lost(error, controller, operation, false);
    }
    this.keepSession(response);
    return { response, controller, timer };
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

  /** The call's connection failed, before its answer or `midway` through it. */
  private lost(
    error: unknown,
    controller: AbortController,
    operation: OperationName,
    midway: boolean,
  ): ApiError {
    if (error instanceof ApiError) return error;
    const failed = this.fail(
      callFailure(error, {
        ...this.facts(operation),
        timedOut: (controller.signal.reason as Error | undefined)?.name === 'TimeoutError',
        midway,
      }),
    );
    this.onReach?.(false, failed.message, upstreamFailureOf(failed));
    return failed;
  }

  /** The facts of every call of this upstream that its failures' mapping needs. */
  private facts(operation: OperationName): CallFacts {
    return { operation, timeoutSeconds: this.timeoutMs / 1000 };
  }

  /** How an answer is read as text: bounded by `limit`, refused or cut beyond it. */
  private textOptions(
    controller: AbortController,
    operation: OperationName,
    limit: number,
    beyond: 'refuse' | 'cut',
  ): AnswerTextOptions {
    return {
      limit,
      beyond,
      redactor: this.redactor,
      seen: this.seen,
      tooLarge: (bytes, declared) =>
        this.fail({
          httpStatus: 502,
          code: ErrorCode.UpstreamFailed,
          cause: {
            kind: 'tooLarge',
            mebibytes: Math.round((bytes / MIB) * 10) / 10,
            declared,
            boundMebibytes: this.maxBytes / MIB,
          },
        }),
      lost: (error) => this.lost(error, controller, operation, true),
    };
  }

  private async read(
    operation: OperationName,
    answer: { response: Response; controller: AbortController },
    records: RecordStream | undefined,
  ): Promise<TreeObject> {
    const { response, controller } = answer;
    const { status } = response;
    const method = OPERATIONS[operation];
    const refused = (serviceMessage: string, facts: Partial<CallFacts>) =>
      this.fail(
        callFailure(new HttpError(status, method, response.url, undefined, serviceMessage, ''), {
          ...this.facts(operation),
          ...facts,
        }),
      );
    if (status >= 300 && status < 400) {
      controller.abort();
      throw refused('', { location: response.headers.get('location') ?? '' });
    }
    if (status >= 400) {
      const body = await cutText(
        response,
        controller,
        this.textOptions(controller, operation, REFUSAL_BYTES, 'cut'),
      );
      let tree: TreeObject | undefined;
      try {
        tree = xmlToTree(body);
      } catch {
        tree = undefined;
      }
      const execute = tree?.ExecuteResponse;
      throw refused(
        execute && typeof execute === 'object' && !Array.isArray(execute)
          ? String(execute.Message ?? '')
          : wordsOf(body),
        {},
      );
    }
    const stream = new XmlTreeStream(records, this.maxValueChars);
    let seen = '';
    let tree: TreeObject;
    try {
      const options = this.textOptions(controller, operation, this.maxBytes, 'refuse');
      for await (const text of answerText(response, controller, options)) {
        if (seen.length < 200) seen += text.slice(0, 200);
        stream.write(text);
      }
      tree = stream.close();
    } catch (error) {
      controller.abort();
      // The vendor's value, not the caller's page: a 502 naming it, never a 4xx.
      if (error instanceof XmlValueTooLargeError)
        throw this.fail({
          httpStatus: 502,
          code: ErrorCode.UpstreamFailed,
          cause: {
            kind: 'valueTooLarge',
            element: error.element,
            characters: error.characters,
            boundCharacters: error.boundCharacters,
          },
        });
      if (!(error instanceof XmlStreamError)) throw error;
      throw this.fail(callFailure(new ParseError(error.message, seen), this.facts(operation)));
    }
    const execute = tree.ExecuteResponse;
    if (execute && typeof execute === 'object' && !Array.isArray(execute)) {
      if (execute.Status !== 'OK')
        throw refused(String(execute.Message ?? ''), { answerStatus: String(execute.Status) });
    }
    return tree;
  }
}
