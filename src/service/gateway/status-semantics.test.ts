import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readConfig } from '../config.ts';
import { startService } from '../testing/service.ts';
import { startVendorService, VENDOR_VARIANTS } from '../testing/vendor/vendor-service.ts';
import type { IndexPoller } from './poller.ts';
import { readServicesFile } from './services.ts';
import { parseStatusesFlag, resolveStatuses, VENDOR_STATUSES } from './status-semantics.ts';

// What a service's status words mean: from --upstream-statuses or a services file's
// `statuses:` (bad input stops the start naming the flag or the file and line), defaults
// from interfaces.md for a vendor and the contract for our engine, and what an upstream's
// refusal of a retry or cancel teaches the gateway.

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

const single = ['--upstream', 'http://127.0.0.1:1', '--upstream-key', 'k'];

describe('--upstream-statuses', () => {
  it('reads each class once, its words comma-separated, and derives what was not given', () => {
    const config = readConfig(
      [...single, '--upstream-statuses', 'failed=Error,Abort; running=Running ;waiting=Wait'],
      {},
    );
    const entry = config.services?.[0];
    expect(entry && 'statuses' in entry ? entry.statuses : undefined).toEqual({
      failed: ['Error', 'Abort'],
      running: ['Running'],
      waiting: ['Wait'],
    });
    const words = resolveStatuses(
      parseStatusesFlag('failed=Error,Abort;running=Running;waiting=Wait'),
      undefined,
      'x',
    );
    expect(words).toEqual({
      failed: ['Error', 'Abort'],
      waiting: ['Wait'],
      running: ['Running'],
      final: ['Finish', 'Error', 'Abort'],
      retryable: ['Error', 'Abort'],
      cancellable: ['Wait', 'Running'],
    });
    // The variable when the flag is absent.
    const fromEnv = readConfig(single, { PIPELINE_UPSTREAM_STATUSES: 'cancellable=' });
    const envEntry = fromEnv.services?.[0];
    expect(envEntry && 'statuses' in envEntry ? envEntry.statuses : undefined).toEqual({
      cancellable: [],
    });
  });

  it('takes a vendor’s own words: other scripts, a space inside', () => {
    const config = readConfig(
      [...single, '--upstream-statuses', 'failed=異常終了,En échec;waiting=En attente'],
      {},
    );
    const entry = config.services?.[0];
    expect(entry && 'statuses' in entry ? entry.statuses : undefined).toEqual({
      failed: ['異常終了', 'En échec'],
      waiting: ['En attente'],
    });
    const failed = readConfig([...single, '--upstream-failed', 'Échec total, 異常終了'], {});
    const failedEntry = failed.services?.[0];
    expect(
      failedEntry && 'failedStatuses' in failedEntry ? failedEntry.failedStatuses : undefined,
    ).toEqual(['Échec total', '異常終了']);
  });

  it.each([
    ['failed', 'needs ='],
    ['broken=Error', '"broken" is not a class'],
    ['failed=Error;failed=Abort', 'failed is given twice'],
    ['failed=Err\tor', '"Err\\tor" is not a status word'],
    [`failed=${'語'.repeat(65)}`, 'is not a status word'],
    ['running=Running;final=Running', 'Running cannot be both running and final'],
    ['waiting=Wait;running=Wait', 'Wait cannot be both waiting and running'],
    [';', 'give class=words pairs'],
  ])('refuses %j naming the flag', (text, problem) => {
    expect(() => readConfig([...single, '--upstream-statuses', text], {})).toThrow(
      '--upstream-statuses',
    );
    expect(() => readConfig([...single, '--upstream-statuses', text], {})).toThrow(problem);
  });

  it('refuses the failed words given twice, and the flag without --upstream', () => {
    expect(() =>
      readConfig(
        [...single, '--upstream-failed', 'Abort', '--upstream-statuses', 'failed=Error'],
        {},
      ),
    ).toThrow('--upstream-failed and failed= of --upstream-statuses');
    expect(() => readConfig(['--upstream-statuses', 'failed=Abort'], {})).toThrow(
      '--upstream-statuses goes with --upstream',
    );
    // --upstream-failed alone still works, and makes Abort retryable and final too.
    const config = readConfig([...single, '--upstream-failed', 'Error,Abort'], {});
    const entry = config.services?.[0];
    const failed = entry && 'failedStatuses' in entry ? entry.failedStatuses : undefined;
    expect(resolveStatuses(undefined, failed, 'x')).toMatchObject({
      final: ['Finish', 'Error', 'Abort'],
      retryable: ['Error', 'Abort'],
    });
  });
});

describe('statuses in a services file', () => {
  const folder = mkdtempSync(join(tmpdir(), 'statuses-'));
  const file = join(folder, 'services.yaml');

  it('reads a mapping of classes, and names the file and line of a problem', () => {
    writeFileSync(
      file,
      [
        '- id: kanto',
        '  url: http://127.0.0.1:1',
        '  apiKey: k',
        '  statuses:',
        '    failed: [Abort]',
        '    running: Running',
        '    cancellable: [Wait, Running]',
      ].join('\n'),
    );
    expect(readServicesFile(file, {})[0]).toMatchObject({
      statuses: { failed: ['Abort'], running: ['Running'], cancellable: ['Wait', 'Running'] },
    });
    writeFileSync(
      file,
      '- { id: a, url: "http://127.0.0.1:1", apiKey: k }\n- { id: b, url: "http://127.0.0.1:2", apiKey: k, statuses: { ended: [Finish] } }\n',
    );
    expect(() => readServicesFile(file, {})).toThrow(
      /services.yaml:2: statuses: "ended" is not a class/,
    );
    writeFileSync(
      file,
      '- { id: b, url: "http://127.0.0.1:2", apiKey: k, failedStatuses: [Abort], statuses: { failed: [Error] } }\n',
    );
    expect(() => readServicesFile(file, {})).toThrow(/services.yaml:1: service b: .*given twice/);
    writeFileSync(file, '- { id: b, url: "http://127.0.0.1:2", apiKey: k, statuses: [Error] }\n');
    expect(() => readServicesFile(file, {})).toThrow(/services.yaml:1: statuses must be a mapping/);
    writeFileSync(file, '- { id: local, embedded: true, statuses: { failed: [Abort] } }\n');
    expect(() => readServicesFile(file, {})).toThrow(/the embedded one's are its contract's/);
    rmSync(folder, { recursive: true, force: true });
  });
});

describe('status words of a gateway', () => {
  it('tells each service its words: ours for the embedded one, defaults or configured for upstreams', async () => {
    const vendor = await startVendorService({ variant: VENDOR_VARIANTS.kanto });
    open.push(() => vendor.close());
    const gateway = await startService({
      services: [
        { id: 'local', name: 'Local', embedded: true },
        { id: 'plain', name: 'Plain', url: vendor.url, apiKey: vendor.apiKey },
        {
          id: 'kanto',
          name: 'Kanto',
          url: vendor.url,
          apiKey: vendor.apiKey,
          failedStatuses: ['Abort'],
        },
      ],
      pollScheduled: false,
    });
    open.push(() => gateway.close());
    const [local, plain, kanto] = gateway.app.context.services.list();
    expect(local?.statuses).toMatchObject({
      from: 'contract',
      failed: ['Error'],
      retryable: ['Error', 'Stop'],
      cancellable: ['Wait', 'Start', 'Process'],
    });
    expect(plain?.statuses).toMatchObject({ from: 'defaults', ...VENDOR_STATUSES, learned: [] });
    expect(kanto?.statuses).toMatchObject({
      from: 'configured',
      failed: ['Abort'],
      retryable: ['Abort'],
    });
  });

  it("learns from an upstream's refusal that a status cannot be retried or cancelled there", async () => {
    const vendor = await startVendorService({ variant: VENDOR_VARIANTS.kanto });
    open.push(() => vendor.close());
    const gateway = await startService({
      services: [
        {
          id: 'kanto',
          name: 'Kanto',
          url: vendor.url,
          apiKey: vendor.apiKey,
          // Wrong on purpose: the product does not retry a finished request.
          statuses: { failed: ['Abort'], retryable: ['Abort', 'Cancel', 'Finish'] },
        },
      ],
      pollScheduled: false,
    });
    open.push(() => gateway.close());
    vendor.addRequests('pl_1', 1);
    vendor.addRequests('pl_1', 1, 'fail.csv', 'failed');
    const poller = gateway.app.context.services.route('kanto')?.upstream?.poller as IndexPoller;
    await poller.pollNow();
    const finished = vendor.requests().find((r) => r.status === 'Finish')?.requestId as string;
    const failed = vendor.requests().find((r) => r.status === 'Abort')?.requestId as string;
    const directory = gateway.app.context.services;
    expect(directory.statusesOf('kanto').retryable).toContain('Finish');

    const refused = await gateway.keyed(`/pipelineapi/requestretry?requestid=${finished}`, {
      method: 'PUT',
    });
    expect(refused.status).toBe(409);
    const learned = directory.list()[0]?.statuses.learned ?? [];
    expect(learned).toEqual([
      {
        action: 'retry',
        status: 'Finish',
        message: `Request ${finished} cannot be retried in status Finish`,
        at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
      },
    ]);
    // The configuration still says what it said; what the server acts on leaves Finish out.
    expect(directory.list()[0]?.statuses.retryable).toContain('Finish');
    expect(directory.statusesOf('kanto').retryable).toEqual(['Abort', 'Cancel']);

    // A cancel refused (the request has ended) is learnt apart from retries.
    const cancel = await gateway.keyed(`/pipelineapi/requestcancel?requestid=${failed}`, {
      method: 'DELETE',
    });
    expect(cancel.status).toBe(409);
    expect(directory.list()[0]?.statuses.learned.map((l) => `${l.action} ${l.status}`)).toEqual([
      'retry Finish',
      'cancel Abort',
    ]);
    // An accepted retry teaches nothing.
    const retried = await gateway.keyed(`/pipelineapi/requestretry?requestid=${failed}`, {
      method: 'PUT',
    });
    expect(retried.status).toBe(200);
    expect(directory.list()[0]?.statuses.learned).toHaveLength(2);
  });

  it("selects a vendor's failed words for Retry all by default", async () => {
    const vendor = await startVendorService({ variant: VENDOR_VARIANTS.kanto });
    open.push(() => vendor.close());
    const gateway = await startService({
      services: [
        {
          id: 'kanto',
          name: 'Kanto',
          url: vendor.url,
          apiKey: vendor.apiKey,
          failedStatuses: ['Error', 'Abort'],
        },
      ],
      pollScheduled: false,
    });
    open.push(() => gateway.close());
    vendor.addRequests('pl_1', 2);
    vendor.addRequests('pl_1', 3, 'fail.csv', 'failed');
    const poller = gateway.app.context.services.route('kanto')?.upstream?.poller as IndexPoller;
    await poller.pollNow();
    const day = (await poller.index.state('kanto')).today as string;
    const preview = await gateway.keyed(`/pipelineapi/bulk/json?action=retry&date=${day}`);
    expect(preview.status).toBe(200);
    const body = (await preview.json()) as { BulkPreview: { Status: string; Total: number } };
    expect(body.BulkPreview).toMatchObject({ Status: 'Error,Abort', Total: 3 });
  });
});
