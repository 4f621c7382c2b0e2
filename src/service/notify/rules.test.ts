import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../config.ts';
import { startService } from '../testing/service.ts';
import { startVendorService } from '../testing/vendor/vendor-service.ts';
import {
  startWebhookReceiver,
  type Received,
  type WebhookReceiver,
} from '../testing/webhook-receiver.ts';
import { writeTestPipelines } from '../testing/pipelines.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The optional rules of contract section 9: a pipeline suspended, an upstream unreachable
// for N minutes; each told once to the service's receivers.

let receiver: WebhookReceiver;
let base: string;
let received: Received[];

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  base = receiver.url;
  received = receiver.received;
});

afterAll(() => receiver.close());

describe('notification rules', () => {
  it('tells once that a pipeline was suspended, not the ones suspended before the start', async () => {
    received.length = 0;
    const service = await startService({
      pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'rules-defs-'))),
      notify: { targets: [`${base}/ops`], retryDelaysMs: [10], rules: { suspended: true } },
    });
    try {
      await service.client.suspend('pl_1');
      service.app.watchPipelines();
      service.app.watchPipelines();
      await service.app.context.notifier.settled();
      expect(received.map((r) => r.body)).toEqual([
        expect.objectContaining({
          service: 'local',
          pipelineId: 'pl_1',
          name: 'Orders',
          status: 'Suspended',
          text: 'Pipeline Orders (pl_1) was suspended: its new requests wait.',
        }),
      ]);
    } finally {
      await service.close();
    }
  });

  it('tells once that an upstream has been unreachable for N minutes, to its own receivers too', async () => {
    received.length = 0;
    let now = Date.parse('2026-11-22T10:00:00Z');
    const vendor = await startVendorService();
    const gateway = await startService({
      clock: { now: () => new Date(now) },
      services: [
        {
          id: 'prod',
          name: 'Production',
          url: vendor.url,
          apiKey: vendor.apiKey,
          notify: [`${base}/prod-team`],
        },
      ],
      notify: { targets: [], retryDelaysMs: [10], rules: { unreachableMinutes: 5 } },
    });
    try {
      await vendor.close();
      const directory = gateway.app.context.services;
      await directory.checkAll(); // the outage begins
      now += 4 * 60_000;
      await directory.checkAll(); // four minutes: not yet
      await gateway.app.context.notifier.settled();
      expect(received).toEqual([]);
      now += 2 * 60_000;
      await directory.checkAll(); // six minutes
      now += 60_000;
      await directory.checkAll(); // the same outage: not again
      await gateway.app.context.notifier.settled();
      expect(received.map((r) => [r.path, r.body.status, r.body.service])).toEqual([
        ['/prod-team', 'Unreachable', 'prod'],
      ]);
      expect(received[0]?.body.text).toContain(
        'Service Production (prod) has been unreachable since',
      );
    } finally {
      await gateway.close();
    }
  });

  it('reads the rules from flags and variables, refusing a bad number by name', () => {
    expect(
      readConfig(['--notify-suspended', '--notify-unreachable-min', '10'], {}).notify.rules,
    ).toEqual({
      suspended: true,
      unreachableMinutes: 10,
    });
    expect(
      readConfig([], { PIPELINE_NOTIFY_SUSPENDED: '1', PIPELINE_NOTIFY_UNREACHABLE_MIN: '3' })
        .notify.rules,
    ).toEqual({ suspended: true, unreachableMinutes: 3 });
    expect(() => readConfig(['--notify-unreachable-min', '0'], {})).toThrow(
      '--notify-unreachable-min must be a whole number from 1 to 10080',
    );
  });
});
