import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readServicesFile } from '../gateway/services.ts';
import { readConfig } from '../config.ts';
import { startService } from '../testing/service.ts';
import { startVendorService, VENDOR_VARIANTS } from '../testing/vendor/vendor-service.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.ts';

// Contract section 9 for a service behind the gateway: its request index sees a request
// end failing (in the service's own words) and the server tells the service's receivers,
// once per request and state, never for what stood on the day before the index began.

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver.close());

describe('notifications of an upstream service', () => {
  it("tells of requests the index sees fail, in the service's words, once each", async () => {
    const variant = VENDOR_VARIANTS.kanto;
    const vendor = await startVendorService({ variant });
    const gateway = await startService({
      services: [
        {
          id: 'kanto',
          name: 'Kanto',
          url: vendor.url,
          apiKey: vendor.apiKey,
          notify: [`${receiver.url}/kanto-team`],
          failedStatuses: [variant.status.failed],
        },
      ],
      pollScheduled: false,
      notify: { targets: [], retryDelaysMs: [10] },
    });
    try {
      const poller = gateway.app.context.services.route('kanto')?.upstream?.poller;
      if (!poller) throw new Error('no index of the upstream');
      const { notifier } = gateway.app.context;
      // Failures that stood before the index began are the day as it was found.
      vendor.addRequests('pl_2', 3, 'old.csv', 'failed');
      await poller.pollNow();
      await notifier.settled();
      expect(receiver.received).toEqual([]);

      vendor.addRequests('pl_2', 2, 'broken.csv', 'failed');
      vendor.addRequests('pl_1', 4);
      await poller.pollNow();
      await notifier.settled();
      const failed = vendor.requests().filter((r) => r.filename === 'broken.csv');
      expect(
        receiver.received.map((r) => [r.path, r.body.service, r.body.status, r.body.requestId]),
      ).toEqual(
        failed.map((r) => ['/kanto-team', 'kanto', variant.status.failed, r.requestId]).reverse(),
      );
      const first = receiver.received[0]?.body;
      expect(first?.text).toContain(`ended ${variant.status.failed}`);
      // Why it failed, in the service's words: its log's closing entry.
      expect(first?.message).toBe('Input broken.csv could not be parsed');

      await poller.pollNow();
      await notifier.settled();
      expect(receiver.received).toHaveLength(2);
    } finally {
      await gateway.close();
      await vendor.close();
    }
  });

  it('takes the words from --upstream-failed or failedStatuses, refusing bad ones by name', () => {
    const config = readConfig(
      [
        '--upstream',
        'http://127.0.0.1:1',
        '--upstream-key',
        'k',
        '--upstream-failed',
        'Abort,Lost',
      ],
      {},
    );
    expect(config.services?.[0]).toMatchObject({ failedStatuses: ['Abort', 'Lost'] });
    expect(() =>
      readConfig(
        ['--upstream', 'http://127.0.0.1:1', '--upstream-key', 'k', '--upstream-failed', 'a;b'],
        {},
      ),
    ).toThrow('--upstream-failed');
    // A vendor's own word may hold a space or another script.
    expect(
      readConfig(
        [
          ...['--upstream', 'http://127.0.0.1:1', '--upstream-key', 'k'],
          ...['--upstream-failed', 'En échec,異常終了'],
        ],
        {},
      ).services?.[0],
    ).toMatchObject({ failedStatuses: ['En échec', '異常終了'] });
    const folder = mkdtempSync(join(tmpdir(), 'failed-statuses-'));
    const file = join(folder, 'services.yaml');
    writeFileSync(
      file,
      '- { id: a, url: "http://127.0.0.1:1", apiKey: k, failedStatuses: [Abort] }\n',
    );
    expect(readServicesFile(file, {})[0]).toMatchObject({ failedStatuses: ['Abort'] });
    writeFileSync(
      file,
      '- { id: a, url: "http://127.0.0.1:1", apiKey: k }\n- { id: b, url: "http://127.0.0.1:2", apiKey: k, failedStatuses: ["no;good"] }\n',
    );
    expect(() => readServicesFile(file, {})).toThrow(/services.yaml:2: failedStatuses/);
    expect(() => readConfig(['--upstream-failed', 'Abort'], {})).toThrow(
      '--upstream-failed goes with --upstream',
    );
  });
});
