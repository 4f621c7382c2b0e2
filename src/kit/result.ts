import { HttpError, ParseError } from './errors.ts';
import { htmlToTree } from './html.ts';
import { jsonToTree, xmlToTree, type TreeObject } from './tree.ts';

/** status() of a result, as the spec's client kit names them. */
export const ResultStatus = { OK: 0, Error: 1, SystemError: 2, Unknown: 3 } as const;
export type ResultStatus = (typeof ResultStatus)[keyof typeof ResultStatus];

/** format() of a result, from the response's content type. */
export const ResultFormat = { XML: 0, Json: 1, Html: 2, Unknown: 3 } as const;
export type ResultFormat = (typeof ResultFormat)[keyof typeof ResultFormat];

/** Longest refusal text kept from a body that is no answer of the API (a whole error page is not a message). */
const MAX_WORDS = 500;

const ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};

/** The readable words of a text or HTML body: no tags, scripts or styles, blanks collapsed. */
function wordsOf(body: string): string {
  const text = body
    .replace(/<(script|style|head)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
      if (name.startsWith('#')) {
        const code =
          name[1] === 'x' || name[1] === 'X'
            ? Number.parseInt(name.slice(2), 16)
            : Number(name.slice(1));
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
      }
      return ENTITIES[name.toLowerCase()] ?? entity;
    })
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > MAX_WORDS ? `${text.slice(0, MAX_WORDS)}…` : text;
}

/** The API a Part C URL calls: `list` of `…/pipelineapi/list/htm?…`. */
function apiOfUrl(url: string): string | undefined {
  return /\/([a-z]+)\/(?:xml|json|htm)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase();
}

/** Response types of Part C. */
export type Format = 'xml' | 'json';

/**
 * One response of the pipeline API, in the shape of the spec's client kit.
 *
 * @example
 * const result = await client.get('/list/xml');
 * if (result.status() === ResultStatus.OK) console.log(result.response());
 */
export class PipelineResult {
  private parsed: { value: unknown; ok: boolean } | undefined;

  constructor(
    readonly httpStatus: number,
    readonly contentType: string,
    private readonly body: string,
    readonly method: string,
    readonly url: string,
  ) {}

  /** The body as text. */
  text(): string {
    return this.body;
  }

  format(): ResultFormat {
    const type = this.contentType.split(';', 1)[0]?.trim().toLowerCase() ?? '';
    if (type === 'text/xml' || type === 'application/xml') return ResultFormat.XML;
    if (type === 'text/javascript' || type === 'application/json') return ResultFormat.Json;
    if (type === 'text/html') return ResultFormat.Html;
    return ResultFormat.Unknown;
  }

  /** The parsed body: an object in the contract's JSON shape for XML, JSON and HTML alike; undefined when unparseable. */
  response(): TreeObject | undefined {
    if (!this.parsed) {
      try {
        const format = this.format();
        const value =
          format === ResultFormat.XML
            ? xmlToTree(this.body)
            : format === ResultFormat.Json
              ? jsonToTree(this.body)
              : format === ResultFormat.Html
                ? htmlToTree(this.body, apiOfUrl(this.url))
                : undefined;
        const ok =
          value !== null &&
          typeof value === 'object' &&
          !Array.isArray(value) &&
          Object.keys(value).length > 0;
        this.parsed = { value, ok };
      } catch {
        this.parsed = { value: undefined, ok: false };
      }
    }
    return this.parsed.ok ? (this.parsed.value as TreeObject) : undefined;
  }

  status(): ResultStatus {
    const tree = this.response();
    if (this.httpStatus >= 500) return ResultStatus.SystemError;
    if (this.httpStatus >= 400) return ResultStatus.Error;
    if (this.httpStatus < 200 || this.httpStatus >= 300 || !tree) return ResultStatus.Unknown;
    const execute = tree.ExecuteResponse;
    if (execute && typeof execute === 'object' && !Array.isArray(execute)) {
      // A vendor service may refuse inside a 2xx answer (contract section 7): its Status
      // says so, and its Message is what the user must see.
      if (execute.Status === 'OK') return ResultStatus.OK;
      return execute.Status === 'SystemError' ? ResultStatus.SystemError : ResultStatus.Error;
    }
    return ResultStatus.OK;
  }

  /**
   * The Code and Message of an error body, when it has them. An HTTP error whose body is
   * no answer of the API (a vendor's text or HTML page) gives that body's words as its
   * message: they are all the service said.
   */
  error(): { code: number | undefined; message: string | undefined } {
    const execute = this.response()?.ExecuteResponse;
    if (execute && typeof execute === 'object' && !Array.isArray(execute)) {
      return {
        code: typeof execute.Code === 'number' ? execute.Code : undefined,
        message: typeof execute.Message === 'string' ? execute.Message : undefined,
      };
    }
    if (this.httpStatus >= 400 && this.response() === undefined) {
      const words = wordsOf(this.body);
      return { code: undefined, message: words || undefined };
    }
    return { code: undefined, message: undefined };
  }

  /** The parsed tree of a successful result; throws HttpError or ParseError otherwise. */
  expectOk(): TreeObject {
    const status = this.status();
    const tree = this.response();
    if (status === ResultStatus.OK && tree) return tree;
    if (status === ResultStatus.Error || status === ResultStatus.SystemError) {
      const { code, message } = this.error();
      throw new HttpError(this.httpStatus, this.method, this.url, code, message, this.body);
    }
    throw new ParseError(`${this.method} ${this.url}: the response could not be read`, this.body);
  }
}

/**
 * The record an OK answer holds: `decode` applied to its tree, a decoder's complaint
 * becoming a ParseError that names the call. A refusal throws HttpError (expectOk).
 */
export function decodeOk<T>(result: PipelineResult, decode: (tree: TreeObject) => T): T {
  const tree = result.expectOk();
  try {
    return decode(tree);
  } catch (error) {
    throw new ParseError(
      `${result.method} ${result.url}: ${(error as Error).message}`,
      result.text(),
    );
  }
}
