import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { htmlToTree, xmlToTree } from '../../kit/index.ts';
import { PART_C_MEDIA, type OpenApiDocument } from './document.ts';

/*
 * Test helper: holds answers of the running server to the OpenAPI document, from the
 * outside (status, media type, and the body against the response schema).
 */

export interface Call {
  readonly method: string;
  /** The document's path template, e.g. `/pipelineapi/list/{format}`. */
  readonly template: string;
}

const pointer = (...segments: string[]): string =>
  segments.map((s) => encodeURIComponent(s.replaceAll('~', '~0').replaceAll('/', '~1'))).join('/');

/** Media types whose bodies are JSON and are checked against their schema. */
const JSON_MEDIA = new Set(['application/json', 'text/javascript']);

/**
 * Part C's XML and HTML forms decode (with the kit) to the tree of the JSON form, so they
 * are held to the JSON form's schema: a format cannot say something the others do not.
 */
const DECODERS: Readonly<Record<string, (text: string) => unknown>> = {
  [PART_C_MEDIA.xml]: xmlToTree,
  [PART_C_MEDIA.htm]: htmlToTree,
};

interface ResponseObject {
  readonly content?: Readonly<Record<string, { readonly schema: unknown }>>;
}

export class Conformance {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  /** Path templates as patterns, most literal first (`/mcapi/audit` before `{x}`). */
  private readonly templates: readonly { template: string; pattern: RegExp }[];

  constructor(readonly document: OpenApiDocument) {
    // strict off: the document (openapi, paths, info…) is added whole so that its
    // `#/components/...` references resolve; those keys are not schema keywords.
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(this.ajv);
    this.ajv.addSchema({ ...document, $id: 'openapi.json' });
    this.templates = Object.keys(document.paths)
      .map((template) => ({
        template,
        pattern: new RegExp(
          `^${template
            .split(/(\{\w+\})/)
            .map((part) =>
              /^\{\w+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'),
            )
            .join('')}$`,
        ),
        literal: template.replace(/\{\w+\}/g, '').length,
      }))
      .sort((a, b) => b.literal - a.literal);
  }

  /** The document's path template a request path falls under; undefined outside the document. */
  templateOf(path: string): string | undefined {
    return this.templates.find((t) => t.pattern.test(path))?.template;
  }

  operation(call: Call): Record<string, unknown> | undefined {
    return this.document.paths[call.template]?.[call.method.toLowerCase()];
  }

  /**
   * A method the path does not take answers 405: held to the 405 answer its operations
   * document (the path exists, the method is what is wrong).
   */
  private otherMethod(call: Call, status: number): Call | undefined {
    if (status !== 405) return undefined;
    const method = Object.entries(this.document.paths[call.template] ?? {}).find(
      ([, operation]) => (operation.responses as Record<string, unknown> | undefined)?.['405'],
    )?.[0];
    return method === undefined ? undefined : { method, template: call.template };
  }

  /** What is wrong with this answer to this call, by the document; empty when nothing. */
  async problems(call: Call, response: Response): Promise<string[]> {
    const where = `${call.method} ${call.template} → ${response.status}`;
    const documentedCall = this.operation(call) ? call : this.otherMethod(call, response.status);
    const operation = documentedCall && this.operation(documentedCall);
    if (!documentedCall || !operation) return [`${where}: no such operation in the document`];
    const responses = operation.responses as Record<string, ResponseObject>;
    const documented = responses[String(response.status)];
    if (!documented) return [`${where}: status not in the document`];
    const media = (response.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
    const content = documented.content ?? {};
    const body = await response.text();
    // A redirect: its Location matters, not its body.
    if (Object.keys(content).length === 0) return [];
    if (!Object.hasOwn(content, media)) {
      return [`${where}: media type ${media} not in ${Object.keys(content).join(', ')}`];
    }
    const decode = Object.hasOwn(content, PART_C_MEDIA.json) ? DECODERS[media] : undefined;
    if (!JSON_MEDIA.has(media) && !decode) return [];
    let value: unknown;
    try {
      value = decode ? decode(body) : JSON.parse(body);
    } catch (error) {
      return [`${where}: ${media} body does not decode (${String(error)}): ${body.slice(0, 200)}`];
    }
    const schemaMedia = decode ? PART_C_MEDIA.json : media;
    const method = documentedCall.method.toLowerCase();
    const key = pointer(call.template, method, String(response.status), schemaMedia);
    let validate = this.compiled.get(key);
    if (!validate) {
      const ref = `openapi.json#/${pointer('paths', call.template, method, 'responses', String(response.status), 'content', schemaMedia, 'schema')}`;
      validate = this.ajv.compile({ $ref: ref });
      this.compiled.set(key, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (e) =>
        `${where}: ${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
    );
  }
}
