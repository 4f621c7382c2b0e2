import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipelineClient } from '../../kit/index.ts';
import { conformingFetch, NonConformingAnswer } from './conforming-fetch.ts';
import { startService, TEST_API_KEY, type TestService } from './service.ts';

// The suites' own calls are held to /openapi.json: the check must pass the real service's
// answers and stop a test on an answer that leaves the document.

describe('answers held to /openapi.json in the unit and integration suites', () => {
  let service: TestService;
  let impostor: Server;
  let impostorUrl: string;

  beforeAll(async () => {
    service = await startService();
    // A server that answers like ours but not as the document says.
    impostor = createServer((request, response) => {
      const url = request.url ?? '';
      if (url.startsWith('/pipelineapi/version/json')) {
        response.writeHead(200, { 'content-type': 'text/javascript; charset=UTF-8' });
        response.end('{"Version":"1"}');
      } else if (url.startsWith('/pipelineapi/list')) {
        response.writeHead(405, { 'content-type': 'text/xml; charset=UTF-8' });
        response.end('<Nope/>');
      } else if (url.startsWith('/mcapi/services')) {
        response.writeHead(418, { 'content-type': 'application/json' });
        response.end('{}');
      } else {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end('not described by the document');
      }
    });
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    impostorUrl = `http://127.0.0.1:${(impostor.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await service.close();
    await new Promise((resolve) => impostor.close(resolve));
  });

  it("passes the real service's answers, errors and a wrong method's 405 included", async () => {
    expect((await service.keyed('/pipelineapi/version/json')).status).toBe(200);
    expect((await service.fetch('/pipelineapi/version/json')).status).toBe(401);
    expect((await service.keyed('/pipelineapi/list/xml', { method: 'POST' })).status).toBe(405);
    expect(await service.client.version()).not.toBe('');
  });

  it('rejects an answer whose body leaves the schema, naming where', async () => {
    const checked = conformingFetch(impostorUrl);
    const call = checked(`${impostorUrl}/pipelineapi/version/json`, {
      headers: { 'X-Pipelinewebapi': TEST_API_KEY },
    });
    await expect(call).rejects.toThrow(NonConformingAnswer);
    await expect(checked(`${impostorUrl}/pipelineapi/version/json`)).rejects.toThrow(
      /GET \/pipelineapi\/version\/\{format\} → 200: .*Response/,
    );
  });

  it('rejects a status the document does not give, and a 405 in the wrong shape', async () => {
    const checked = conformingFetch(impostorUrl);
    await expect(checked(`${impostorUrl}/mcapi/services`)).rejects.toThrow(
      /status not in the document/,
    );
    await expect(
      checked(`${impostorUrl}/pipelineapi/list/xml`, { method: 'POST' }),
    ).rejects.toThrow(NonConformingAnswer);
  });

  it('fails a kit client built on it, and leaves paths outside the document alone', async () => {
    const client = new PipelineClient({
      baseUrl: impostorUrl,
      fetch: conformingFetch(impostorUrl),
    });
    // The kit tells it as a transport failure, in the check's words.
    await expect(client.version()).rejects.toThrow(/the answer leaves \/openapi.json/);
    const outside = await conformingFetch(impostorUrl)(`${impostorUrl}/anything-else`);
    expect(await outside.text()).toBe('not described by the document');
  });
});
