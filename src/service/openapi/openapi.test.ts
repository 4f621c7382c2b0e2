import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, RESPONSE_TYPES, type OperationName } from '../../kit/wire.ts';
import { eventually, startService, type TestService } from '../testing/service.ts';
import { Conformance } from './conformance.ts';
import type { OpenApiDocument } from './document.ts';
import { REFUSED_METHODS } from './endpoints.ts';
import { DOCS_PREFIX } from './routes.ts';

const PART_C_ROUTES = ['/pipelineapi/*', '/services/:service/pipelineapi/*'];
const ADMIN_PASSWORD = 'openapi-admin-password';

/** Methods a path refuses with 405 (sign-in, sign-out), as `GET /x`: no operations. */
const REFUSED = new Set(REFUSED_METHODS.flatMap((r) => r.methods.map((m) => `${m} ${r.path}`)));

/** `(method, path)` pairs of the document and of the server's routes, as `GET /x/{id}`. */
function documented(doc: OpenApiDocument): Set<string> {
  return new Set(
    Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
    ),
  );
}

function registered(service: TestService): Set<string> {
  const out = new Set<string>();
  for (const { method, url } of service.app.routes) {
    // Fastify adds HEAD to every GET; Swagger UI's own files are assets of /docs.
    if (method === 'HEAD' || url.startsWith(`${DOCS_PREFIX}/`)) continue;
    if (PART_C_ROUTES.includes(url)) {
      // One wildcard answers every operation: each answers its own method (405 otherwise).
      const prefix = url.startsWith('/services') ? '/services/{service}' : '';
      for (const op of Object.keys(OPERATIONS) as OperationName[]) {
        if (method === OPERATIONS[op]) out.add(`${method} ${prefix}/pipelineapi/${op}/{format}`);
      }
      continue;
    }
    out.add(`${method} ${url.replace(/:(\w+)/g, '{$1}')}`);
  }
  return out;
}

describe('/openapi.json', () => {
  let service: TestService;
  let doc: OpenApiDocument;
  let conformance: Conformance;
  const problems: string[] = [];

  beforeAll(async () => {
    service = await startService({ demo: true, adminPassword: ADMIN_PASSWORD });
    doc = (await (await service.fetch('/openapi.json')).json()) as OpenApiDocument;
    conformance = new Conformance(doc);
  });
  afterAll(() => service.close());

  /** Calls an operation of the document and records where the answer leaves it. */
  async function call(
    method: string,
    template: string,
    options: {
      path?: Record<string, string>;
      fields?: Record<string, string>;
      headers?: Record<string, string>;
    } = {},
  ): Promise<{ status: number; body: string }> {
    const path = template.replace(/\{(\w+)\}/g, (_m, name: string) => options.path?.[name] ?? '');
    const form = new URLSearchParams(options.fields).toString();
    const inBody = method === 'POST' || method === 'PUT';
    const response = await service.fetch(`${path}${!inBody && form ? `?${form}` : ''}`, {
      method,
      headers: {
        ...(inBody ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...options.headers,
      },
      ...(inBody ? { body: form } : {}),
    });
    const copy = response.clone();
    problems.push(...(await conformance.problems({ method, template }, response)));
    return { status: copy.status, body: await copy.text() };
  }

  it('is OpenAPI 3.1 and describes exactly the routes the server registered', () => {
    expect(doc.openapi).toBe('3.1.0');
    const inDocument = documented(doc);
    const onServer = registered(service);
    // The refusals are routes of the server, documented as the 405 of the path's POST.
    for (const refused of REFUSED) {
      expect(onServer.delete(refused), `${refused} is not a route`).toBe(true);
      const path = refused.split(' ')[1] as string;
      expect(Object.keys(doc.paths[path]?.post?.responses ?? {}), path).toContain('405');
    }
    expect(
      [...onServer].filter((r) => !inDocument.has(r)),
      'routes missing from the document',
    ).toEqual([]);
    expect(
      [...inDocument].filter((r) => !onServer.has(r)),
      'documented but not served',
    ).toEqual([]);
    // Every Part C operation in each of its three formats, plain and per service.
    for (const op of Object.keys(OPERATIONS) as OperationName[]) {
      const format = doc.paths[`/pipelineapi/${op}/{format}`]?.[OPERATIONS[op].toLowerCase()];
      const parameters = format?.parameters as { name: string; schema: { enum?: string[] } }[];
      expect(parameters.find((p) => p.name === 'format')?.schema.enum).toEqual([...RESPONSE_TYPES]);
    }
  });

  it('real answers of every operation conform to it, in XML, JSON and HTML', async () => {
    const key = { 'X-Pipelinewebapi': service.app.context.access.key ?? '' };
    const c = (op: OperationName, format: string, fields?: Record<string, string>) =>
      call(OPERATIONS[op], `/pipelineapi/${op}/{format}`, {
        path: { format },
        fields,
        headers: key,
      });
    await eventually(async () => {
      const list = JSON.parse((await c('requestlist', 'json')).body) as {
        RequestList: { Request: { Status: string }[] };
      };
      return list.RequestList.Request.some((r) => r.Status === 'Error') ? true : undefined;
    }, 'a demo request to fail');
    const list = JSON.parse((await c('requestlist', 'json')).body) as {
      RequestList: { Request: { RequestId: string; Status: string }[] };
    };
    const failed = list.RequestList.Request.find((r) => r.Status === 'Error')?.RequestId ?? '';
    const tables = JSON.parse((await c('actiondb', 'json')).body) as {
      Result: { Record: { Item: string[] }[] };
    };
    const table = tables.Result.Record[0]?.Item[0] ?? '';
    expect(table).not.toBe('');
    for (const format of RESPONSE_TYPES) {
      await c('list', format);
      await c('version', format);
      await c('requestlist', format, { status: 'Error,Finish', pagesize: '2' });
      await c('requestdetail', format, { requestid: failed, requestlog: 'true', applog: 'true' });
      for (const db of ['systemdb', 'statusdb', 'actiondb'] as const) await c(db, format);
      await c('actiondb', format, { tablename: table, pagesize: '5' });
      await c('exec', format, { pipelineid: 'pl_2', filename: 'readings.jsonl' });
      await c('suspend', format, { pipelineid: 'pl_3' });
      await c('resume', format, { pipelineid: 'pl_3' });
      await c('requestretry', format, { requestid: failed });
      await c('requestcancel', format, { requestid: failed });
      await c('pipelinecache', format, { pipelineid: 'pl_1', sensor: 'true' });
      // Errors in each format: a bad parameter, an unknown table, no credentials, wrong method.
      await c('requestlist', format, { date: '2026-11-22' });
      await c('actiondb', format, { tablename: 'NO_SUCH_TABLE' });
      await call('GET', '/pipelineapi/list/{format}', { path: { format } });
      const wrongMethod = await service.keyed(`/pipelineapi/exec/${format}`);
      expect(wrongMethod.status).toBe(405);
      await call('GET', '/services/{service}/pipelineapi/version/{format}', {
        path: { service: 'local', format },
        headers: key,
      });
    }
    await c('deletetable', 'json', { table });
    await c('droptable', 'xml', { table });
    const gone = await c('droptable', 'htm', { table });
    expect(gone.status).toBe(404);

    // Part A, the extensions and Part B.
    const login = await call('POST', '/mcapi/auth/login', {
      fields: { userName: 'admin', password: ADMIN_PASSWORD, getRole: 'true' },
    });
    const session = (JSON.parse(login.body) as { result: { data: { sessionId: string } } }).result
      .data.sessionId;
    const mc = { 'X-As-SessionId': session };
    await call('POST', '/mcapi/auth/login', {
      fields: { userName: 'admin', password: 'wrong-one' },
    });
    await call('GET', '/mcapi/auth/session', { headers: mc });
    await call('GET', '/mcapi/auth/session');
    await call('GET', '/mcapi/pipeline/settings', { headers: mc });
    await call('PUT', '/mcapi/pipeline/settings', { headers: mc, fields: { apiEnabled: 'true' } });
    await call('PUT', '/mcapi/pipeline/settings', { headers: mc, fields: { apiEnabled: 'yes' } });
    await call('GET', '/mcapi/services', { headers: mc });
    await call('GET', '/mcapi/audit', { headers: mc, fields: { pagesize: '50' } });
    await call('GET', '/mcapi/audit', { headers: mc, fields: { from: 'x' } });
    await call('GET', '/mcapi/notifications', { headers: mc });
    await call('POST', '/mcapi/notifications/test', { headers: mc });
    await call('POST', '/mcapi/pipeline/apikey', { headers: mc });
    await call('POST', '/mcapi/auth/logout', { fields: { sessionId: session } });
    await call('POST', '/mcapi/auth/logout', { fields: { sessionId: session } });
    const fs = await call('POST', '/api/auth/login', {
      fields: { user: 'admin', password: ADMIN_PASSWORD },
    });
    const fsSession = /<sessionId>([^<]+)</.exec(fs.body)?.[1] ?? '';
    await call('GET', '/api/auth/session', { headers: { 'X-Fs-SessionId': fsSession } });
    await call('POST', '/api/auth/logout', { fields: { sessionId: fsSession } });
    await call('GET', '/api/auth/session', { headers: { 'X-Fs-SessionId': fsSession } });
    await call('GET', '/mcapi/auth/oidc/start', { fields: { next: '/requests' } });
    await call('GET', '/mcapi/auth/oidc/session', { fields: { code: 'x' } });
    const paths = ['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs', '/mcapi/auth/oidc'];
    for (const path of paths) {
      await call('GET', path);
    }
    expect(problems).toEqual([]);
  });

  it('the check itself finds an answer that leaves the document', async () => {
    const call = { method: 'GET', template: '/pipelineapi/version/{format}' };
    const answer = (status: number, type: string, body: string) =>
      new Response(body, { status, headers: { 'content-type': type } });
    const json = 'text/javascript; charset=UTF-8';
    expect(
      await conformance.problems(call, answer(200, json, '{"Response":{"Version":"1"}}')),
    ).toEqual([]);
    const wrong = [
      answer(200, json, '{"Response":{"Version":1}}'),
      answer(200, json, '{"Response":{"Versions":"1"}}'),
      answer(200, json, '{"Result":{"Status":"OK"}}'),
      answer(200, 'application/json', '{}'),
      answer(418, json, '{}'),
      answer(200, json, 'not json'),
    ];
    const xml = 'text/xml; charset=UTF-8';
    const inXml = (inner: string) => `<?xml version="1.0" encoding="UTF-8"?>\n${inner}`;
    expect(
      await conformance.problems(
        call,
        answer(200, xml, inXml('<Response><Version>1</Version></Response>')),
      ),
    ).toEqual([]);
    wrong.push(
      answer(200, xml, inXml('<Response><Versions>1</Versions></Response>')),
      answer(200, xml, inXml('<Result><Status>OK</Status></Result>')),
      answer(200, 'text/html; charset=UTF-8', '<p>not a table</p>'),
    );
    for (const response of wrong) {
      expect(await conformance.problems(call, response)).not.toEqual([]);
    }
  });
});
