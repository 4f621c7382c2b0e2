import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from '../testing/service.ts';
import { Conformance } from './conformance.ts';
import type { OpenApiDocument } from './document.ts';

/*
 * Requests generated from the document's own schemas, sent to the running server (on a
 * throwaway data folder, destructive operations included): no answer is a 5xx, and every
 * answer is one the document describes.
 */

const ADMIN_PASSWORD = 'fuzz-admin-password';
const RUNS = 25;

interface SchemaLike {
  readonly enum?: readonly string[];
  readonly const?: string;
  readonly pattern?: string;
  readonly maxLength?: number;
}
interface ParameterLike {
  readonly name: string;
  readonly in: string;
  readonly schema: SchemaLike;
}
interface OperationLike {
  readonly parameters?: readonly ParameterLike[];
  readonly requestBody?: {
    readonly content: Record<string, { schema: { properties: Record<string, SchemaLike> } }>;
  };
  readonly security?: readonly Record<string, unknown>[];
}

/** A value the schema allows, or one it does not: the server must answer both without a 5xx. */
function valueOf(schema: SchemaLike): fc.Arbitrary<string> {
  const allowed = schema.enum
    ? fc.constantFrom(...schema.enum)
    : schema.const !== undefined
      ? fc.constant(schema.const)
      : schema.pattern
        ? fc.stringMatching(new RegExp(schema.pattern))
        : fc.string({ maxLength: schema.maxLength ?? 40 });
  const junk = fc.oneof(
    fc.string({ maxLength: 60, unit: 'binary' }),
    fc.constantFrom('', '0', '-1', '99999999999', '../../etc/passwd', "' OR 1=1 --", '<b>x</b>'),
  );
  return fc.oneof({ weight: 3, arbitrary: allowed }, { weight: 1, arbitrary: junk });
}

function fieldsOf(operation: OperationLike): Record<string, SchemaLike> {
  const fields: Record<string, SchemaLike> = {};
  for (const p of operation.parameters ?? []) if (p.in === 'query') fields[p.name] = p.schema;
  const form = operation.requestBody?.content['application/x-www-form-urlencoded'];
  Object.assign(fields, form?.schema.properties ?? {});
  return fields;
}

describe('requests generated from /openapi.json', () => {
  let service: TestService;
  let doc: OpenApiDocument;
  let conformance: Conformance;
  let mcSession = '';

  beforeAll(async () => {
    service = await startService({ demo: true, adminPassword: ADMIN_PASSWORD });
    doc = (await (await service.fetch('/openapi.json')).json()) as OpenApiDocument;
    conformance = new Conformance(doc);
    const login = await service.fetch('/mcapi/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `userName=admin&password=${ADMIN_PASSWORD}`,
    });
    mcSession = ((await login.json()) as { result: { data: { sessionId: string } } }).result.data
      .sessionId;
  });
  afterAll(() => service.close());

  /** Credentials the operation asks for: the current API key, an administrator's session. */
  function credentials(operation: OperationLike): Record<string, string> {
    const schemes = (operation.security ?? []).flatMap((s) => Object.keys(s));
    if (schemes.includes('apiKey'))
      return { 'X-Pipelinewebapi': service.app.context.access.key ?? '' };
    if (schemes.includes('mcSession')) return { 'X-As-SessionId': mcSession };
    return {};
  }

  // Part C first: the Part A calls below may reissue the key or switch the API off.
  const order = (path: string) => (path.includes('pipelineapi') ? 0 : 1);

  it('no 5xx and every answer conforming, over every operation', async () => {
    const templates = Object.keys(doc.paths).sort((a, b) => order(a) - order(b));
    let calls = 0;
    for (const template of templates) {
      for (const [method, raw] of Object.entries(doc.paths[template] ?? {})) {
        const operation = raw as OperationLike;
        const fields = fieldsOf(operation);
        const pathParams = (operation.parameters ?? []).filter((p) => p.in === 'path');
        const request = fc.record({
          path: fc.record(
            Object.fromEntries(
              pathParams.map((p) => [
                p.name,
                p.name === 'service' ? fc.constantFrom('local', 'nope') : valueOf(p.schema),
              ]),
            ),
          ),
          fields: fc.record(
            Object.fromEntries(Object.entries(fields).map(([n, s]) => [n, valueOf(s)])),
            { requiredKeys: [] },
          ),
        });
        await fc.assert(
          fc.asyncProperty(request, async ({ path, fields: values }) => {
            const url = template.replace(/\{(\w+)\}/g, (_m, n: string) =>
              encodeURIComponent(path[n] ?? ''),
            );
            const form = new URLSearchParams(values as Record<string, string>).toString();
            const inBody = method === 'post' || method === 'put';
            const response = await service.fetch(`${url}${!inBody && form ? `?${form}` : ''}`, {
              method: method.toUpperCase(),
              headers: {
                ...credentials(operation),
                ...(inBody ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
              },
              ...(inBody ? { body: form } : {}),
            });
            calls += 1;
            const status = response.status;
            const problems = await conformance.problems(
              { method: method.toUpperCase(), template },
              response,
            );
            expect(status, `${method} ${url}?${form}`).toBeLessThan(500);
            expect(problems, `${method} ${url}?${form}`).toEqual([]);
          }),
          { numRuns: RUNS },
        );
      }
    }
    expect(calls).toBeGreaterThanOrEqual(RUNS * templates.length);
    // Some thousand calls, a few of them writes: on two busy cores they outlast the
    // default 30 s, which would fail the test for the machine's load, not the server.
  }, 180_000);
});
