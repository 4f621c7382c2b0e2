import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../config.ts';
import { readServicesFile } from '../gateway/services.ts';
import { writeTestPipelines } from '../testing/pipelines.ts';
import { eventually, startService, type TestService } from '../testing/service.ts';
import {
  startWebhookReceiver,
  type Received,
  type WebhookReceiver,
} from '../testing/webhook-receiver.ts';

// Failed requests reach a webhook receiver (contract section 9): JSON with a Slack/Teams
// `text`, retried with backoff, once per request and state, never blocking the engine.

let receiver: WebhookReceiver;
let base: string;
let received: Received[];
let failuresLeft = 0;

beforeAll(async () => {
  receiver = await startWebhookReceiver((path) => {
    if (path === '/slow') return 'never';
    return path === '/broken' || failuresLeft-- > 0 ? 500 : 200;
  });
  base = receiver.url;
  received = receiver.received;
});

afterAll(() => receiver.close());

async function serviceWith(targets: string[]): Promise<TestService> {
  const service = await startService({
    pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'notify-defs-'))),
    notify: { targets, publicUrl: 'https://ops.example', retryDelaysMs: [20, 40], timeoutMs: 300 },
  });
  writeFileSync(join(service.dataDir, 'inbox', 'orders.csv'), 'id,amount,note\n1,20,x\n');
  return service;
}

describe('notifications', () => {
  it('posts a failed request once, retrying a receiver that answers 500 first, and records it', async () => {
    received.length = 0;
    failuresLeft = 1;
    const service = await serviceWith([`${base}/hook/SECRET-TOKEN`]);
    try {
      await service.client.exec('pl_1', 'orders.csv');
      const failed = (await service.client.exec('pl_1', 'missing.csv')).requestId as string;
      await service.app.engine.whenIdle();
      await service.app.context.notifier.settled();
      expect(received).toHaveLength(2); // one 500, then the delivery
      const body = received[1]?.body ?? {};
      expect(body).toMatchObject({
        service: 'local',
        requestId: failed,
        pipelineId: 'pl_1',
        name: 'Orders',
        status: 'Error',
        stage: 'Sensor',
        link: `https://ops.example/requests/${failed}`,
      });
      expect(body.text).toContain(`Request ${failed} of Orders ended Error in Sensor:`);
      expect(body.message).toContain('missing.csv');
      // The same request failing again after a retry is the same request and state.
      await service.client.retry(failed);
      await service.app.engine.whenIdle();
      await service.app.context.notifier.settled();
      expect(received).toHaveLength(2);
      const rows = await service.app.context.shared.all(
        'SELECT TARGET AS "TARGET", OUTCOME AS "OUTCOME", ATTEMPTS AS "ATTEMPTS" FROM NOTIFICATION',
      );
      // The receiver's path is its secret: only the origin is kept.
      expect(rows).toEqual([{ TARGET: base, OUTCOME: 'sent', ATTEMPTS: 2 }]);
    } finally {
      await service.close();
    }
  });

  it('gives up on a receiver that keeps failing or never answers, without holding requests up', async () => {
    received.length = 0;
    const service = await serviceWith([`${base}/broken`, `${base}/slow`]);
    try {
      await service.client.exec('pl_1', 'missing.csv');
      await service.app.engine.whenIdle();
      const outcomes = async () =>
        (
          await service.app.context.shared.all<{ OUTCOME: string }>(
            'SELECT OUTCOME AS "OUTCOME" FROM NOTIFICATION ORDER BY SEQ',
          )
        ).map((r) => r.OUTCOME);
      // The request has ended and the engine is idle while its notifications are still tried
      // (claimed beside the engine: the claims may take a moment to be written).
      expect(
        await eventually(async () => {
          const now = await outcomes();
          return now.length === 2 ? now : undefined;
        }, 'both claims'),
      ).toEqual(['pending', 'pending']);
      await service.app.context.notifier.settled();
      const rows = await service.app.context.shared.all(
        'SELECT OUTCOME AS "OUTCOME", ATTEMPTS AS "ATTEMPTS", MESSAGE AS "MESSAGE" FROM NOTIFICATION ORDER BY SEQ',
      );
      expect(rows).toEqual([
        { OUTCOME: 'failed', ATTEMPTS: 3, MESSAGE: 'HTTP 500' },
        { OUTCOME: 'failed', ATTEMPTS: 3, MESSAGE: 'no answer in time' },
      ]);
    } finally {
      await service.close();
    }
  });

  it('lets administrators send a test message and read what was sent, never the secret path', async () => {
    received.length = 0;
    failuresLeft = 0;
    const service = await serviceWith([`${base}/hook/SECRET-TOKEN`]);
    try {
      const login = await service.fetch('/mcapi/auth/login', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: `userName=admin&password=${encodeURIComponent(service.app.initialAdminPassword ?? '')}`,
      });
      const session = ((await login.json()) as { result: { data: { sessionId: string } } }).result
        .data.sessionId;
      const test = await service.fetch('/mcapi/notifications/test', {
        method: 'POST',
        headers: { 'X-As-SessionId': session },
      });
      const text = await test.text();
      expect(test.status).toBe(200);
      expect(JSON.parse(text).result.data.results).toEqual([
        { target: base, outcome: 'sent', message: 'HTTP 200' },
      ]);
      expect(received[0]?.body.text).toBe(
        'Test notification from the pipeline dashboard, sent by admin.',
      );
      const list = await service.fetch('/mcapi/notifications', {
        headers: { 'X-As-SessionId': session },
      });
      const listed = await list.text();
      expect(JSON.parse(listed).result.data.targets).toEqual([base]);
      expect(text + listed).not.toContain('SECRET-TOKEN');
    } finally {
      await service.close();
    }
  });

  it('sends the requests of a service to the receivers of its notify: in the services file too', async () => {
    received.length = 0;
    failuresLeft = 0;
    const folder = mkdtempSync(join(tmpdir(), 'notify-services-'));
    const file = join(folder, 'services.yaml');
    writeFileSync(
      file,
      `services:\n  - id: local\n    embedded: true\n    notify:\n      - ${base}/team-hook\n`,
    );
    const service = await startService({
      services: readServicesFile(file, {}),
      pipelinesFile: writeTestPipelines(folder),
      notify: { targets: [`${base}/global`], retryDelaysMs: [20], timeoutMs: 300 },
    });
    try {
      const failed = (await service.client.exec('pl_1', 'missing.csv')).requestId as string;
      await service.app.engine.whenIdle();
      await service.app.context.notifier.settled();
      expect(received.map((r) => [r.path, r.body.requestId]).sort()).toEqual([
        ['/global', failed],
        ['/team-hook', failed],
      ]);
      expect(service.app.context.notifier.targets).toEqual([`${base}/global`, `${base}/team-hook`]);
    } finally {
      await service.close();
    }
    writeFileSync(file, `- id: local\n  embedded: true\n  notify: mailto:ops@example.com\n`);
    expect(() => readServicesFile(file, {})).toThrow(
      `${file}:1: notify must be http or https URLs`,
    );
  });

  it('refuses a receiver that is not http(s) at start', () => {
    expect(() => readConfig(['--notify', 'ftp://example.com/x'], {})).toThrow(
      '--notify needs an http or https URL, not a ftp: one',
    );
    expect(() => readConfig([], { PIPELINE_NOTIFY: 'not a url' })).toThrow(
      '--notify needs an http or https URL',
    );
  });
});
