import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTestPipelines } from '../testing/pipelines.ts';
import { startService, TEST_API_KEY, type TestService } from '../testing/service.ts';

// Issue 16: "a generated client in another language works with the server out of the box".
// OpenAPI::Client (Perl, Debian's libopenapi-client-perl, installed by .ci/run) builds a
// client from /openapi.json at run time, one method per operationId, and validates each
// request against the document before sending it.

const run = promisify(execFile);
const SCRIPT = join(import.meta.dirname, 'clients/pipeline-client.pl');

let service: TestService;
let cache: string;

beforeAll(async () => {
  service = await startService({
    pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'perl-client-defs-'))),
  });
  writeFileSync(join(service.dataDir, 'inbox', 'orders.csv'), 'id,amount,note\n1,20,x\n');
  // JSON::Validator checks a document against the OpenAPI 3.1 meta-schema, which it would
  // download from spec.openapis.org; these machines reach no such site. Its cache (files
  // named by the URL's MD5) is given a schema that accepts anything, so the client trusts
  // the document as it is. The document's own shape is checked by openapi.test.ts.
  cache = mkdtempSync(join(tmpdir(), 'openapi-client-'));
  const { createHash } = await import('node:crypto');
  const url = 'https://spec.openapis.org/oas/3.1/schema/2021-05-20';
  writeFileSync(join(cache, createHash('md5').update(url).digest('hex')), '{}');
});

afterAll(async () => {
  await service.close();
});

describe('a Perl client generated from /openapi.json', () => {
  it('reads, starts a request, follows it and gets a refusal in the service’s words', async () => {
    const { stdout } = await run(
      'perl',
      [SCRIPT, service.url, TEST_API_KEY, 'pl_1', 'orders.csv'],
      {
        env: { ...process.env, JSON_VALIDATOR_CACHE_PATH: cache },
        timeout: 60_000,
      },
    );
    const lines = Object.fromEntries(
      stdout
        .trim()
        .split('\n')
        .map((line) => {
          const [operation = '', ...rest] = line.split(' ');
          return [operation, rest.join(' ')];
        }),
    );
    const version = await service.client.version();
    expect(lines.version).toBe(`200 ${version}`);
    const ids = (await service.client.listPipelines()).map((p) => p.id);
    expect(ids.length).toBeGreaterThan(0);
    expect(lines.list).toBe(`200 ${ids.join(',')}`);
    const [execStatus, requestId = ''] = (lines.exec ?? '').split(' ');
    expect(execStatus).toBe('200');
    expect(requestId).toMatch(/^pl_1-\d{8}_\d{2}-\d{6}$/);
    expect(lines.requestdetail).toBe(`200 ${requestId}`);
    expect((await service.client.requestDetail(requestId)).sensorFile).toBe('orders.csv');
    expect(lines.refused).toMatch(/^404 \d{4}$/);
  });
});
