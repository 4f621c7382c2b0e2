import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeControls, notText } from '../db/text.ts';
import { writeTestPipelines } from '../testing/pipelines.ts';
import { startPostgres, type PostgresCluster } from '../testing/postgres.ts';
import { signIn, startService, TEST_API_KEY, type TestService } from '../testing/service.ts';

// Text is text (issue 39, item 4), on SQLite and on PostgreSQL alike: a NUL, another
// control character or half of a surrogate pair in any field that reaches a store is refused
// with 400 naming the field, never a 5xx; a 1 MB value is refused as "longer than"; U+202E
// is a character and kept; what must be kept whatever it holds (a refused sign-in's name, an
// upstream's refusal) is kept with such characters written `\u0000`, and audited.
//
// Per field: Part A's and B's fields (names, passwords, session ids, filters, flags) are one
// line, so tab, line feed and carriage return are refused there too; Part C's and the bulk
// jobs' free text (`q`, `reason`, a pipeline's Args) may span lines.

const ADMIN_PASSWORD = 'admin-password-text-1';
const FORM = 'application/x-www-form-urlencoded; charset=UTF-8';
const TODAY = '20261121';

/** Percent-encoded values that are not text: C0, DEL, C1, and a surrogate's UTF-8 bytes. */
const NOT_TEXT = ['%00', '%01', '%1B', '%7F', '%C2%85', '%ED%A0%80'];

interface FieldCase {
  readonly field: string;
  /** Sends the call with the field's value (percent-encoded already). */
  readonly send: (service: TestService, admin: string, encoded: string) => Promise<Response>;
  /** Whether tab, line feed and carriage return are text in it. */
  readonly multiLine: boolean;
  /** Its limit in characters, when a 1 MB value fits in the call (a form body). */
  readonly limit?: number;
}

// Raw fetch: a refusal must not be held to /openapi.json's documented statuses here (that
// is conforming-fetch's job); what is held is 400 and the field's name.
const raw = (service: TestService, path: string, init: RequestInit = {}) =>
  fetch(`${service.url}${path}`, init);
const post = (
  service: TestService,
  path: string,
  body: string,
  headers: Record<string, string> = {},
  method = 'POST',
) => raw(service, path, { method, headers: { 'Content-Type': FORM, ...headers }, body });
const keyed = { 'X-Pipelinewebapi': TEST_API_KEY };

/** Every field a client sends that reaches a store, with how to send it. */
const FIELDS: readonly FieldCase[] = [
  {
    field: 'userName',
    multiLine: false,
    limit: 1024,
    send: (s, _a, v) => post(s, '/mcapi/auth/login', `userName=eve${v}&password=whatever-1`),
  },
  {
    field: 'password',
    multiLine: false,
    limit: 1024,
    send: (s, _a, v) => post(s, '/mcapi/auth/login', `userName=admin&password=pw${v}`),
  },
  {
    field: 'sessionId',
    multiLine: false,
    limit: 1024,
    send: (s, _a, v) => post(s, '/mcapi/auth/logout', `sessionId=s${v}`),
  },
  {
    field: 'user',
    multiLine: false,
    send: (s, a, v) => raw(s, `/mcapi/audit?user=eve${v}`, { headers: { 'X-As-SessionId': a } }),
  },
  {
    field: 'operation',
    multiLine: false,
    send: (s, a, v) =>
      raw(s, `/mcapi/audit/export?operation=mc${v}`, { headers: { 'X-As-SessionId': a } }),
  },
  {
    field: 'name',
    multiLine: false,
    limit: 1024,
    send: (s, a, v) =>
      post(s, '/mcapi/tokens', `name=ci${v}&expiresInDays=1`, { 'X-As-SessionId': a }),
  },
  {
    field: 'apiEnabled',
    multiLine: false,
    limit: 1024,
    send: (s, a, v) =>
      post(s, '/mcapi/pipeline/settings', `apiEnabled=true${v}`, { 'X-As-SessionId': a }, 'PUT'),
  },
  {
    field: 'user',
    multiLine: false,
    limit: 1024,
    send: (s, _a, v) => post(s, '/api/auth/login', `user=eve${v}&password=whatever-1`),
  },
  {
    field: 'q',
    multiLine: true,
    send: (s, _a, v) =>
      raw(s, `/pipelineapi/requestlist/json?date=${TODAY}&q=a${v}b`, { headers: keyed }),
  },
  {
    field: 'pipelineid',
    multiLine: true,
    limit: 1024,
    send: (s, _a, v) => post(s, '/pipelineapi/resume/json', `pipelineid=pl_1${v}`, keyed, 'PUT'),
  },
  {
    field: 'filename',
    multiLine: true,
    limit: 255,
    send: (s, _a, v) =>
      post(s, '/pipelineapi/exec/json', `pipelineid=pl_1&filename=orders${v}.csv`, keyed),
  },
  {
    field: 'reason',
    multiLine: true,
    limit: 500,
    send: (s, _a, v) =>
      post(s, '/pipelineapi/bulk/json', `action=retry&date=${TODAY}&reason=see${v}here`, keyed),
  },
];

/** The message of a refusal, whichever Part answered (JSON envelope, Part B XML, Part C). */
async function messageOf(response: Response): Promise<string> {
  const text = await response.text();
  if (text.startsWith('{')) {
    const body = JSON.parse(text) as {
      result?: { message?: string };
      ExecuteResponse?: { Message?: string };
    };
    return body.result?.message ?? body.ExecuteResponse?.Message ?? text;
  }
  return /<message>([^<]*)<\/message>/i.exec(text)?.[1] ?? text;
}

interface AuditEntry {
  userName: string | null;
  operation: string;
  httpStatus: number;
  message: string;
  parameters: Record<string, string>;
}

async function auditOf(
  service: TestService,
  admin: string,
  operation: string,
): Promise<AuditEntry[]> {
  const response = await service.fetch(`/mcapi/audit?operation=${operation}&pagesize=100`, {
    headers: { 'X-As-SessionId': admin },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: { data: { entries: AuditEntry[] } } }).result.data
    .entries;
}

describe('db/text.ts', () => {
  it('tells control characters and lone surrogates from text, and writes them out as \\u0000', () => {
    expect(notText('a\u0000b')).toBe('holds the control character U+0000');
    expect(notText('a\u009fb')).toBe('holds the control character U+009F');
    expect(notText('a\tb')).toBe('holds the control character U+0009');
    expect(notText('a\tb\r\nc', { multiLine: true })).toBeUndefined();
    expect(notText('\ud800x')).toMatch(/half of a surrogate pair \(U\+D800\)/);
    expect(notText('x\udc00')).toMatch(/U\+DC00/);
    // A whole pair, an RTL override, a replacement-free CJK text: text.
    expect(notText('😀 \u202eabc 日本語')).toBeUndefined();
    expect(escapeControls('a\u0000b\u001b\ud800')).toBe('a\\u0000b\\u001b\\ud800');
    expect(escapeControls('line\nnext', { multiLine: true })).toBe('line\nnext');
    expect(escapeControls('line\nnext')).toBe('line\\u000anext');
    expect(escapeControls('😀\u202e')).toBe('😀\u202e');
  });
});

let cluster: PostgresCluster;

beforeAll(async () => {
  cluster = await startPostgres();
});

afterAll(async () => {
  await cluster.remove();
});

describe.each(['sqlite', 'postgres'] as const)('on %s', (engine) => {
  let service: TestService;
  let admin: string;

  beforeAll(async () => {
    service = await startService({
      adminPassword: ADMIN_PASSWORD,
      databaseUrl: engine === 'postgres' ? await cluster.freshDatabase() : undefined,
      // The calls whose entries are looked for come from addresses of their own: the many
      // refusals before them are beyond the bound of a stranger's entries per address.
      trustProxy: ['127.0.0.1'],
      pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'text-defs-'))),
    });
    admin = await signIn(service, 'admin', ADMIN_PASSWORD);
  });

  afterAll(async () => {
    await service.close();
  });

  it('refuses NUL, other control characters and lone surrogates in every field with 400 naming it', async () => {
    for (const { field, send } of FIELDS)
      for (const bad of NOT_TEXT) {
        const response = await send(service, admin, bad);
        const label = `${field} ${bad}`;
        expect(response.status, label).toBe(400);
        const message = await messageOf(response);
        expect(message, label).toContain(`Parameter ${field} `);
        expect(message, label).toMatch(
          bad === '%ED%A0%80' ? /not valid UTF-8/ : /holds the control character U\+00/,
        );
      }
  });

  it('takes tab, line feed and carriage return in multi-line text only', async () => {
    for (const { field, send, multiLine } of FIELDS)
      for (const breaks of ['%09', '%0A', '%0D%0A']) {
        const response = await send(service, admin, breaks);
        const message = response.status === 400 ? await messageOf(response) : '';
        expect(response.status, `${field} ${breaks}`).toBeLessThan(500);
        // (A file name has rules of its own beyond text's: fields.ts.)
        if (multiLine)
          expect(message, `${field} ${breaks}`).not.toMatch(/holds the control character/);
        else expect(message, `${field} ${breaks}`).toMatch(/holds the control character U\+000/);
      }
  });

  it('refuses a 1 MB value as longer than its limit, and a 1 MB URL is never a 5xx', async () => {
    const huge = 'x'.repeat(1_000_000);
    for (const { field, send, limit } of FIELDS) {
      if (limit === undefined) {
        // A query string: the server's header bound answers before any field is read.
        const response = await send(service, admin, huge);
        expect(response.status, field).toBeGreaterThanOrEqual(400);
        expect(response.status, field).toBeLessThan(500);
        // Within the bound, the field's own limit says it.
        const long = await send(service, admin, 'y'.repeat(30_000));
        expect(long.status, field).toBe(400);
        expect(await messageOf(long), field).toMatch(
          new RegExp(`Parameter ${field} is longer than \\d+ characters`),
        );
        continue;
      }
      const response = await send(service, admin, huge);
      expect(response.status, field).toBe(400);
      expect(await messageOf(response), field).toContain(
        `Parameter ${field} is longer than ${limit} characters`,
      );
    }
  });

  it('keeps an RTL override (U+202E) as it is: text, shown as text', async () => {
    const rtl = '%E2%80%AE';
    for (const { field, send } of FIELDS) {
      const response = await send(service, admin, rtl);
      expect(response.status, field).toBeLessThan(500);
      if (response.status === 400)
        expect(await messageOf(response), field).not.toMatch(/control character|UTF-8/);
    }
    // A sign-in under such a name fails as any unknown name does, and is audited as it is.
    const failed = await post(
      service,
      '/mcapi/auth/login',
      `userName=eve${rtl}&password=whatever-1`,
      {
        'X-Forwarded-For': '198.51.100.1',
      },
    );
    expect(failed.status).toBe(403);
    const entries = await auditOf(service, admin, 'mc.login');
    expect(entries.some((e) => e.userName === 'eve\u202e' && e.httpStatus === 403)).toBe(true);
  });

  it('audits a failed sign-in whose name is refused, the name written out (\\u0000)', async () => {
    const response = await post(
      service,
      '/mcapi/auth/login',
      'userName=mallory%00%1B%0A&password=whatever-1',
      { 'X-Forwarded-For': '198.51.100.2' },
    );
    expect(response.status).toBe(400);
    const huge = await post(
      service,
      '/mcapi/auth/login',
      `userName=${'z'.repeat(1_000_000)}%00&password=whatever-1`,
      { 'X-Forwarded-For': '198.51.100.3' },
    );
    expect(huge.status).toBe(400);
    const entries = await auditOf(service, admin, 'mc.login');
    const refused = entries.find((e) => e.userName === 'mallory\\u0000\\u001b\\u000a');
    expect(refused).toMatchObject({ httpStatus: 400, operation: 'mc.login' });
    expect(refused?.message).toBe('Parameter userName holds the control character U+0000.');
    // Its parameters carry the name the same way, the password redacted.
    expect(refused?.parameters).toMatchObject({
      userName: 'mallory\\u0000\\u001b\n',
      password: '[redacted]',
    });
    // The 1 MB one is there too, its name cut to the audit's bound.
    const long = entries.find((e) => e.userName?.startsWith('zzzz'));
    expect(long?.httpStatus).toBe(400);
    expect(long?.userName?.length).toBeLessThanOrEqual(128);
  });

  it('audits a refused change, its parameter written out', async () => {
    const response = await post(
      service,
      '/pipelineapi/suspend/json',
      'pipelineid=pl_1%00',
      keyed,
      'PUT',
    );
    expect(response.status).toBe(400);
    const entries = await auditOf(service, admin, 'suspend');
    expect(entries[0]).toMatchObject({
      httpStatus: 400,
      message: 'Parameter pipelineid holds the control character U+0000.',
      parameters: { pipelineid: 'pl_1\\u0000' },
    });
    // Nothing changed: pl_1 still runs.
    const list = await service.keyed('/pipelineapi/list/json');
    const pipelines = (
      (await list.json()) as { PipelineList: { PipeLine: { Id: string; Runmode: string }[] } }
    ).PipelineList.PipeLine;
    expect(pipelines.find((p) => p.Id === 'pl_1')?.Runmode).toBe('run');
  });

  it('refuses a JSON body holding a lone surrogate, never with a 5xx', async () => {
    for (const path of ['/mcapi/auth/login', '/api/auth/login', '/pipelineapi/exec/json']) {
      const response = await raw(service, path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...keyed },
        body: '{"userName":"\\ud800","user":"\\ud800","password":"\\u0000","filename":"\\ud800"}',
      });
      expect(response.status, path).toBe(400);
    }
  });

  it('stores any text bound to the shared store with its control characters written out', async () => {
    // What no route lets through (an upstream's words) still cannot break the store.
    const sql = service.app.context.shared;
    await sql.run('INSERT INTO SETTING (NAME, VALUE) VALUES (?, ?)', [
      'text-test',
      'a\u0000b\u0001c\nd',
    ]);
    const row = await sql.get<{ VALUE: string }>(
      'SELECT VALUE AS "VALUE" FROM SETTING WHERE NAME = ?',
      ['text-test'],
    );
    expect(row?.VALUE).toBe('a\\u0000b\\u0001c\nd');
  });
});

describe.each(['sqlite', 'postgres'] as const)(
  'an upstream refusal holding NUL, on %s',
  (engine) => {
    let upstream: Server;
    let gateway: TestService;
    let admin: string;
    const REFUSAL = 'Pipeline pl_1 is locked by job\u0000 7\u001b[31m';

    beforeAll(async () => {
      // An upstream whose refusal of a resume is plain text holding NUL and an escape sequence.
      upstream = createServer((request, response) => {
        const path = (request.url ?? '').split('?')[0] ?? '';
        if (path.startsWith('/pipelineapi/resume')) {
          response.writeHead(409, { 'content-type': 'text/plain; charset=UTF-8' });
          response.end(REFUSAL);
          return;
        }
        response.writeHead(200, { 'content-type': 'text/xml; charset=UTF-8' });
        response.end(
          path.startsWith('/pipelineapi/list')
            ? '<?xml version="1.0" encoding="UTF-8"?><PipelineList><PipeLine><Id>pl_1</Id><Name>one</Name><Runmode>stop</Runmode><Createdate>2026-11-20T08:00:00.000 UTC</Createdate><Updatedate>2026-11-20T08:00:00.000 UTC</Updatedate><Description></Description></PipeLine></PipelineList>'
            : '<?xml version="1.0" encoding="UTF-8"?><Response><Version>1.0</Version></Response>',
        );
      });
      await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
      const { port } = upstream.address() as AddressInfo;
      gateway = await startService({
        adminPassword: ADMIN_PASSWORD,
        databaseUrl: engine === 'postgres' ? await cluster.freshDatabase() : undefined,
        services: [
          { id: 'up', name: 'Upstream', url: `http://127.0.0.1:${port}`, apiKey: 'upstream-key-1' },
        ],
      });
      admin = await signIn(gateway, 'admin', ADMIN_PASSWORD);
    });

    afterAll(async () => {
      await gateway.close();
      await new Promise((resolve) => upstream.close(resolve));
    });

    it('answers its 4xx, and the audit keeps the entry with the text written out', async () => {
      const response = await post(
        gateway,
        '/pipelineapi/resume/json',
        'pipelineid=pl_1',
        keyed,
        'PUT',
      );
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      const entries = await auditOf(gateway, admin, 'resume');
      expect(entries[0]?.httpStatus).toBe(response.status);
      expect(entries[0]?.message).toContain('locked by job\\u0000 7\\u001b[31m');
    });
  },
);
