import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpError, runmodeState } from '../../kit/index.ts';
import { addUser } from '../auth/users.ts';
import { startGatewayBefore, type GatewayBefore } from '../testing/gateway-before.ts';
import { writeTestPipelines } from '../testing/pipelines.ts';
import { signIn, startService, type TestService } from '../testing/service.ts';

// Issue 38, item 6: the reason a pipeline is suspended for (the dashboard asks it on a
// production service) is kept in the audit entry of that suspend, and never reaches a
// vendor's service, whose interface (interfaces.md) has no such field.

const PASSWORD = 'runmode-reason-password-1';
const REASON = 'Joint の書き込み先が満杯です & disk full: hold until 14:00';

/** The parameters of the newest audit entry of `operation`, read by a new administrator. */
async function auditedParameters(
  service: TestService,
  operation: string,
): Promise<Record<string, string> | undefined> {
  await addUser(service.app.context.shared, 'ada', PASSWORD, 'administrator', 'now');
  const session = await signIn(service, 'ada', PASSWORD);
  const response = await service.fetch(`/mcapi/audit?operation=${operation}`, {
    headers: { 'X-As-SessionId': session },
  });
  const body = (await response.json()) as {
    result: { data: { entries: { parameters: Record<string, string> }[] } };
  };
  return body.result.data.entries[0]?.parameters;
}

describe('a suspend with its reason, on the embedded service', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService({
      pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'runmode-reason-'))),
    });
  });
  afterAll(() => service.close());

  it('suspends, and the audit entry keeps the reason', async () => {
    const answer = await service.client.suspendWithReason('pl_2', REASON, 'json');
    expect(answer.status).toBe('OK');
    const pipelines = await service.client.listPipelines('json');
    expect(runmodeState(pipelines.find((p) => p.id === 'pl_2')?.runmode ?? '')).toBe('stop');
    expect(await auditedParameters(service, 'suspend')).toMatchObject({
      pipelineid: 'pl_2',
      reason: REASON,
    });
  });

  it('refuses a reason longer than an audit entry keeps, naming it, and suspends nothing', async () => {
    await service.client.resume('pl_1', 'json');
    const refused: unknown = await service.client
      .suspendWithReason('pl_1', 'x'.repeat(257), 'json')
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HttpError);
    expect((refused as HttpError).status).toBe(400);
    expect((refused as HttpError).serviceMessage).toMatch(/reason/);
    const pipelines = await service.client.listPipelines('json');
    expect(runmodeState(pipelines.find((p) => p.id === 'pl_1')?.runmode ?? '')).toBe('run');
  });
});

describe('a suspend with its reason, through the gateway to a vendor', () => {
  let started: GatewayBefore;
  beforeAll(async () => {
    started = await startGatewayBefore();
  });
  afterAll(() => started.close());

  it('asks the vendor with interfaces.md’s field alone, and the gateway’s audit keeps the reason', async () => {
    const answer = await started.gateway.client.suspendWithReason('pl_2', REASON, 'json');
    expect(answer.status).toBe('OK');
    const sent = started.vendor
      .received()
      .filter((c) => c.api === 'suspend')
      .at(-1);
    expect(sent?.fields).toEqual({ pipelineid: 'pl_2' });
    expect(`${sent?.query ?? ''}${sent?.body ?? ''}`).not.toContain('reason');
    expect(await auditedParameters(started.gateway, 'suspend')).toMatchObject({
      pipelineid: 'pl_2',
      reason: REASON,
    });
  });
});
