import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialInQuery } from '../secret-names.ts';
import { writeTestPipelines } from '../testing/pipelines.ts';
import { signIn, startService, TEST_API_KEY, type TestService } from '../testing/service.ts';

// Nothing secret in a query string is kept (issue 39, item 5): a credential sent in a URL
// is refused with 400 naming the parameter and where the credential goes (interfaces.md:
// the key in X-Pipelinewebapi, session ids in X-As-SessionId / X-Fs-SessionId, a password
// in a POST's form body), before anything authenticates it, cached reads included. Bodies
// are where form fields belong and are not refused; single sign-on's `code` and `state`
// belong in a callback's query and are not either.

const ADMIN_PASSWORD = 'admin-password-query-1';
const FORM = 'application/x-www-form-urlencoded; charset=UTF-8';
const TOKEN = `pdt_${'Q'.repeat(43)}`;

let service: TestService;

// Raw fetch: the refusals are held to their status and words here.
const raw = (path: string, init: RequestInit = {}) => fetch(`${service.url}${path}`, init);

async function refusal(response: Response): Promise<{ status: number; message: string }> {
  const text = await response.text();
  if (text.startsWith('{')) {
    const body = JSON.parse(text) as {
      result?: { message?: string };
      ExecuteResponse?: { Message?: string };
    };
    return {
      status: response.status,
      message: body.result?.message ?? body.ExecuteResponse?.Message ?? text,
    };
  }
  return {
    status: response.status,
    message: /<(?:m|M)essage>([^<]*)<\/(?:m|M)essage>/.exec(text)?.[1] ?? text,
  };
}

beforeAll(async () => {
  service = await startService({
    adminPassword: ADMIN_PASSWORD,
    pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'query-cred-defs-'))),
  });
});

afterAll(async () => {
  await service.close();
});

describe('credentialInQuery', () => {
  it('knows the names a credential goes by, in any case and punctuation, and no others', () => {
    for (const name of ['X-Pipelinewebapi', 'x_pipelinewebapi', 'apikey', 'API_KEY', 'token'])
      expect(credentialInQuery(name, 'v', '/pipelineapi/list')?.where, name).toBe(
        'the X-Pipelinewebapi header',
      );
    expect(credentialInQuery('q', TOKEN, '/pipelineapi/requestlist')?.what).toBe(
      'a personal token',
    );
    expect(credentialInQuery('Password', 'v', '/mcapi/auth/login')?.where).toBe(
      'a form field of a POST body',
    );
    expect(credentialInQuery('sessionId', 'v', '/mcapi/auth/session')?.where).toBe(
      'the X-As-SessionId header',
    );
    expect(credentialInQuery('sessionId', 'v', '/api/anything')?.where).toBe(
      'the X-Fs-SessionId header',
    );
    expect(credentialInQuery('sessionId', 'v', '/api/auth/logout')?.where).toBe(
      'a form field of a POST body',
    );
    // OAuth's callback fields, a provider's session_state, and ordinary fields are none.
    for (const name of ['code', 'state', 'session_state', 'next', 'q', 'tablename', 'monkey'])
      expect(credentialInQuery(name, 'value', '/mcapi/auth/oidc/callback'), name).toBeUndefined();
  });
});

describe('a credential in a query string', () => {
  it('is refused on Part C naming the X-Pipelinewebapi header, even beside a good header', async () => {
    // A read the cache holds, so that the path before Fastify's cycle is tried too.
    for (let i = 0; i < 2; i += 1)
      expect((await service.keyed('/pipelineapi/list/xml')).status).toBe(200);
    for (const query of [
      `X-Pipelinewebapi=${TEST_API_KEY}`,
      `apikey=${TEST_API_KEY}`,
      `api_key=${TEST_API_KEY}`,
      `token=${TOKEN}`,
      `q=${TOKEN}`,
      `p%61ssword=x`,
      TOKEN,
    ]) {
      for (const headers of [{}, { 'X-Pipelinewebapi': TEST_API_KEY }] as Record<
        string,
        string
      >[]) {
        const answer = await refusal(await raw(`/pipelineapi/list/xml?${query}`, { headers }));
        expect(answer.status, query).toBe(400);
        const given = decodeURIComponent(query.split('=')[0] as string);
        // A token sent as a name is not quoted back.
        const name = given === TOKEN ? '[redacted]' : given;
        expect(answer.message, query).toContain(`Parameter ${name} carries`);
        expect(answer.message, query).toMatch(/send it in (the X-Pipelinewebapi header|a form)/);
        // The refusal never repeats the credential.
        expect(answer.message).not.toContain(TEST_API_KEY);
        expect(answer.message).not.toContain(TOKEN);
      }
    }
    const viaService = await refusal(
      await raw(`/services/local/pipelineapi/version/json?X-Pipelinewebapi=${TEST_API_KEY}`),
    );
    expect(viaService.status).toBe(400);
    expect(viaService.message).toContain('the X-Pipelinewebapi header');
  });

  it('changes nothing: a refused suspend leaves the pipeline running', async () => {
    const response = await raw(`/pipelineapi/suspend/json?pipelineid=pl_1&apikey=${TEST_API_KEY}`, {
      method: 'PUT',
      headers: { 'X-Pipelinewebapi': TEST_API_KEY },
    });
    expect(response.status).toBe(400);
    const list = (await (await service.keyed('/pipelineapi/list/json')).json()) as {
      PipelineList: { PipeLine: { Id: string; Runmode: string }[] };
    };
    expect(list.PipelineList.PipeLine.find((p) => p.Id === 'pl_1')?.Runmode).toBe('run');
  });

  it('is refused on sign-in (a password) and Parts A and B (session ids), the body still taken', async () => {
    const inQuery = await refusal(
      await raw(`/mcapi/auth/login?password=${ADMIN_PASSWORD}`, {
        method: 'POST',
        headers: { 'Content-Type': FORM },
        body: new URLSearchParams({ userName: 'admin', password: ADMIN_PASSWORD }).toString(),
      }),
    );
    expect(inQuery).toEqual({
      status: 400,
      message:
        'Parameter password carries a password in the URL, where browser histories and proxies keep it: send it in a form field of a POST body.',
    });
    const flow = await refusal(
      await raw(`/api/auth/login?user=admin&password=${ADMIN_PASSWORD}`, { method: 'POST' }),
    );
    expect(flow.status).toBe(400);
    expect(flow.message).toContain('Parameter password carries a password');
    // The same sign-in with its fields in the body alone (interfaces.md) works.
    const session = await signIn(service, 'admin', ADMIN_PASSWORD);
    const bySession = await refusal(await raw(`/mcapi/auth/session?sessionId=${session}`));
    expect(bySession.status).toBe(400);
    expect(bySession.message).toContain('send it in the X-As-SessionId header');
    const logout = await refusal(
      await raw(`/api/auth/logout?sessionId=${session}`, { method: 'POST' }),
    );
    expect(logout.status).toBe(400);
    expect(logout.message).toContain('send it in a form field of a POST body');
    // The session was not ended by any of it.
    const still = await service.fetch('/mcapi/auth/session', {
      headers: { 'X-As-SessionId': session },
    });
    expect(still.status).toBe(200);
  });

  it('leaves fields that carry no credential alone: the callback code, session_state, bodies', async () => {
    const list = await service.keyed('/pipelineapi/list/xml?session_state=abc&next=%2F');
    expect(list.status).toBe(200);
    // No single sign-on here: the handoff route answers as before, not 400.
    const handoff = await raw('/mcapi/auth/oidc/session?code=abc&state=def');
    expect(handoff.status).not.toBe(400);
    // A key-shaped field in a form body is only a field (and redacted in the audit).
    const body = await raw('/pipelineapi/resume/json', {
      method: 'PUT',
      headers: { 'Content-Type': FORM, 'X-Pipelinewebapi': TEST_API_KEY },
      body: new URLSearchParams({ pipelineid: 'pl_1', apikey: 'not-a-credential' }).toString(),
    });
    expect(body.status).toBe(200);
  });
});
