import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../service/app.ts';
import {
  startVendorService,
  VENDOR_VARIANTS,
  type VendorService,
} from '../service/testing/vendor/vendor-service.ts';
import { PipelineClient, ResultStatus } from './index.ts';

// Pointed straight at a vendor service that refuses inside a 200 answer (contract
// section 7), the kit and pipelinectl show the service's own message, never "the
// response could not be read", and a refused command exits non-zero.

let vendor: VendorService;
let client: PipelineClient;

beforeAll(async () => {
  vendor = await startVendorService({ variant: VENDOR_VARIANTS.kanto });
  client = new PipelineClient({ baseUrl: vendor.url, apiKey: vendor.apiKey });
});

afterAll(async () => {
  await vendor.close();
});

describe('a refusal inside a 2xx answer', () => {
  it('is an Error result with the service message, and a typed call throws it', async () => {
    const result = await client.put('/requestretry/xml', { requestid: 'pl_1-20261122_09-000404' });
    expect(result.httpStatus).toBe(200);
    expect(result.status()).toBe(ResultStatus.Error);
    expect(result.error()).toEqual({
      code: undefined,
      message: 'Request pl_1-20261122_09-000404 does not exist',
    });
    await expect(client.retry('pl_1-20261122_09-000404', 'xml')).rejects.toMatchObject({
      name: 'HttpError',
      status: 200,
      serviceMessage: 'Request pl_1-20261122_09-000404 does not exist',
    });
  });

  it('makes pipelinectl print the service message and exit 1', async () => {
    // Asynchronously: the vendor double answers from this very process.
    const run = await promisify(execFile)(
      process.execPath,
      [join(REPO_ROOT, 'src/kit/cli/pipelinectl.mjs'), 'resume', 'pl_404', '--url', vendor.url],
      { env: { ...process.env, PIPELINE_API_KEY: vendor.apiKey }, encoding: 'utf8' },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('pipelinectl: refused Pipeline pl_404 does not exist\n');
  });

  it('still reads an OK answer as OK', async () => {
    const result = await client.put('/resume/xml', { pipelineid: 'pl_1' });
    expect(result.status()).toBe(ResultStatus.OK);
  });
});
