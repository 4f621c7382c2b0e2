import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { xmlToTree } from '../../kit/index.ts';
import { ManualClock } from '../clock.ts';
import { writeTestPipelines } from '../testing/pipelines.ts';
import type { AppConfig } from '../app.ts';
import { startService, type TestService } from '../testing/service.ts';
import {
  startVendorService,
  VENDOR_VARIANTS,
  type VendorService,
} from '../testing/vendor/vendor-service.ts';
import { readConfig } from '../config.ts';
import { readServicesFile, ServicesFileError } from './services.ts';

// Each service's time zone in GET /mcapi/services: the server's own for the embedded
// service, the services file's `zone:` for an upstream, else what its own dates tell.

interface Zone {
  id: string;
  timeZone: string;
  utcOffsetMinutes: number | null;
  utcOffsetEstimated: boolean;
  zoneName: string;
}

const PASSWORD = 'zone-admin-password-1';
const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close();
});

async function start(config: Partial<AppConfig>): Promise<TestService> {
  const service = await startService({ ...config, adminPassword: PASSWORD, pollScheduled: false });
  open.push(() => service.close());
  return service;
}

/** A gateway in July before the `pacific` double, as service `west` of zone America/Los_Angeles. */
function westGateway(
  pacific: VendorService,
  config: Partial<AppConfig> = {},
): Promise<TestService> {
  return start({
    services: [
      {
        id: 'west',
        name: 'West',
        url: pacific.url,
        apiKey: pacific.apiKey,
        zone: 'America/Los_Angeles',
      },
    ],
    clock: new ManualClock(Date.UTC(2026, 6, 1, 12)),
    ...config,
  });
}

async function zones(service: TestService): Promise<Zone[]> {
  const login = await service.fetch('/mcapi/auth/login', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `userName=admin&password=${PASSWORD}`,
  });
  const { sessionId } = ((await login.json()) as { result: { data: { sessionId: string } } }).result
    .data;
  const response = await service.fetch('/mcapi/services', {
    headers: { 'X-As-SessionId': sessionId },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: { data: { services: Zone[] } } }).result.data
    .services;
}

async function vendor(variant: keyof typeof VENDOR_VARIANTS): Promise<VendorService> {
  const started = await startVendorService({ variant: VENDOR_VARIANTS[variant] });
  open.push(() => started.close());
  return started;
}

describe('the embedded service', () => {
  it("tells the server's zone, its offset on the day (daylight saving time) and the name its dates carry", async () => {
    const summer = await start({
      timeZone: 'America/New_York',
      clock: new ManualClock(Date.UTC(2026, 6, 1, 12)),
      pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'zone-defs-'))),
    });
    const [local] = await zones(summer);
    expect(local).toMatchObject({
      timeZone: 'America/New_York',
      utcOffsetMinutes: -240,
      zoneName: 'EDT',
    });
    const list = xmlToTree(await (await summer.keyed('/pipelineapi/list/xml')).text()) as {
      PipelineList: { PipeLine?: { Createdate: string } | { Createdate: string }[] };
    };
    // The same name as the service's own pipeline dates.
    const dates = [list.PipelineList.PipeLine ?? []].flat().map((p) => p.Createdate);
    expect(dates.length).toBeGreaterThan(0);
    for (const date of dates) expect(date).toMatch(/ EDT$/);

    const winter = await start({
      timeZone: 'America/New_York',
      clock: new ManualClock(Date.UTC(2026, 0, 15, 12)),
    });
    expect((await zones(winter))[0]).toMatchObject({ utcOffsetMinutes: -300, zoneName: 'EST' });
  });

  it("is the process's own zone when none is given", async () => {
    const service = await start({});
    const [local] = await zones(service);
    expect(local?.timeZone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(typeof local?.utcOffsetMinutes).toBe('number');
    expect(local?.zoneName).not.toBe('');
  });
});

describe('an upstream', () => {
  it('without a configured zone: unknown until its dates tell the offset (540) and the name (JST)', async () => {
    const kanto = await vendor('kanto');
    const gateway = await start({
      services: [{ id: 'tokyo', name: 'Tokyo', url: kanto.url, apiKey: kanto.apiKey }],
    });
    expect((await zones(gateway))[0]).toMatchObject({
      id: 'tokyo',
      timeZone: '',
      utcOffsetMinutes: null,
      zoneName: '',
    });
    const poller = gateway.app.context.services.route('tokyo')?.upstream?.poller;
    if (!poller) throw new Error('the gateway keeps no index of its upstream');
    kanto.addRequests('pl_1', 2);
    await poller.pollNow();
    expect((await zones(gateway))[0]).toMatchObject({
      timeZone: '',
      utcOffsetMinutes: 540,
      zoneName: 'JST',
    });
  });

  it('tells the offset from the request that began last, whatever order the service lists in', async () => {
    // 12:00 in Tokyo. Three requests began at 10:00, one now; the service lists oldest first.
    const clock = new ManualClock(Date.UTC(2026, 6, 1, 3, 0));
    let lateMs = 2 * 3_600_000;
    const kanto = await startVendorService({
      variant: VENDOR_VARIANTS.kanto,
      behaviour: { order: 'oldest' },
      now: () => new Date(clock.now().getTime() - lateMs),
    });
    open.push(() => kanto.close());
    kanto.addRequests('pl_1', 3);
    lateMs = 0;
    kanto.addRequests('pl_1', 1);
    const gateway = await start({
      services: [{ id: 'tokyo', name: 'Tokyo', url: kanto.url, apiKey: kanto.apiKey }],
      clock,
    });
    const poller = gateway.app.context.services.route('tokyo')?.upstream?.poller;
    await poller?.pollNow();
    // Its first request would have told 420 (UTC+7). A first round cannot tell how long ago
    // its newest began: the offset is said to be an estimate.
    expect((await zones(gateway))[0]).toMatchObject({
      utcOffsetMinutes: 540,
      utcOffsetEstimated: true,
    });

    // Two hours on, a request new to the gateway that began back then (a list that reaches
    // further, a service that was cut short): it is not taken for one that began a moment ago.
    clock.advance(2 * 3_600_000);
    lateMs = 2 * 3_600_000;
    kanto.addRequests('pl_2', 1);
    await poller?.pollNow();
    expect((await zones(gateway))[0]).toMatchObject({
      utcOffsetMinutes: 540,
      utcOffsetEstimated: true,
    });
    // One that began a moment ago, since a round a moment ago, tells it: no estimate now.
    clock.advance(60_000);
    lateMs = 0;
    kanto.addRequests('pl_2', 1);
    await poller?.pollNow();
    expect((await zones(gateway))[0]).toMatchObject({
      utcOffsetMinutes: 540,
      utcOffsetEstimated: false,
    });
  });

  it("with zone: in the services file: that zone's offset on the day, and the name its dates carry", async () => {
    const pacific = await vendor('pacific');
    const gateway = await westGateway(pacific);
    expect((await zones(gateway))[0]).toMatchObject({
      timeZone: 'America/Los_Angeles',
      utcOffsetMinutes: -420,
      zoneName: '',
    });
    const poller = gateway.app.context.services.route('west')?.upstream?.poller;
    await poller?.pollNow();
    // The configured zone's offset stands; the name is the one the service writes.
    expect((await zones(gateway))[0]).toMatchObject({
      timeZone: 'America/Los_Angeles',
      utcOffsetMinutes: -420,
      utcOffsetEstimated: false,
      zoneName: 'PST',
    });
  });
});

describe("an upstream's AsOf", () => {
  it('is on its configured zone, also before its dates have told an offset', async () => {
    const pacific = await vendor('pacific');
    pacific.addRequests('pl_1', 2);
    // Our clock months away from the double's: no request can tell its offset.
    const gateway = await westGateway(pacific, { apiKey: 'zone-gateway-key-0123456789' });
    await gateway.app.context.services.route('west')?.upstream?.poller?.pollNow();
    const answer = await gateway.fetch('/pipelineapi/requestlist/json', {
      headers: { 'X-Pipelinewebapi': 'zone-gateway-key-0123456789' },
    });
    const list = (await answer.json()) as { RequestList: { Info: { AsOf?: string } } };
    // 12:00:00 UTC less the 2 s margin, on Los Angeles' daylight time (UTC-7).
    expect(list.RequestList.Info.AsOf).toBe('20260701045958');
  });
});

describe('zone: in a services file', () => {
  const write = (lines: string[]): string => {
    const path = join(mkdtempSync(join(tmpdir(), 'services-')), 'services.yaml');
    writeFileSync(path, lines.join('\n'));
    return path;
  };
  const upstream = (zone: string) => [
    '- { id: local, embedded: true }',
    '- id: prod',
    '  url: https://pipelines.example',
    '  apiKey: k-1',
    `  zone: ${zone}`,
  ];

  it('takes an IANA name', () => {
    const entries = readServicesFile(write(upstream('Asia/Tokyo')), {});
    expect(entries[1]).toMatchObject({ id: 'prod', zone: 'Asia/Tokyo' });
  });

  it('refuses a zone the server does not know, naming the line, the service and the setting', () => {
    const path = write(upstream('Mars/Olympus_Mons'));
    expect(() => readServicesFile(path, {})).toThrow(ServicesFileError);
    expect(() => readServicesFile(path, {})).toThrow(
      /services\.yaml:2: service prod: zone "Mars\/Olympus_Mons" is not a time zone/,
    );
    expect(() =>
      readServicesFile(write(['- { id: local, embedded: true, zone: Asia/Tokyo }']), {}),
    ).toThrow(/service local: zone is for upstream services/);
  });
});

describe('--upstream-zone', () => {
  const single = ['--upstream', 'https://pipelines.example', '--upstream-key', 'k-1'];

  it('gives the single upstream its zone, which /mcapi/services then tells', async () => {
    const config = readConfig([...single, '--upstream-zone', 'Asia/Tokyo'], {});
    expect(config.services?.[0]).toMatchObject({ id: 'upstream', zone: 'Asia/Tokyo' });
    expect(
      readConfig(single, { PIPELINE_UPSTREAM_ZONE: 'Europe/Paris' }).services?.[0],
    ).toMatchObject({ zone: 'Europe/Paris' });
    const kanto = await vendor('kanto');
    const [entry] =
      readConfig(
        ['--upstream', kanto.url, '--upstream-key', kanto.apiKey, '--upstream-zone', 'Asia/Tokyo'],
        {},
      ).services ?? [];
    if (!entry) throw new Error('--upstream made no service');
    const gateway = await start({
      services: [entry],
      clock: new ManualClock(Date.UTC(2026, 6, 1, 12)),
    });
    expect((await zones(gateway))[0]).toMatchObject({
      id: 'upstream',
      timeZone: 'Asia/Tokyo',
      utcOffsetMinutes: 540,
    });
  });

  it('refuses a zone the server does not know, and the flag without --upstream', () => {
    expect(() => readConfig([...single, '--upstream-zone', 'Mars/Olympus_Mons'], {})).toThrow(
      /--upstream-zone: "Mars\/Olympus_Mons" is not a time zone this server knows/,
    );
    expect(() => readConfig(['--upstream-zone', 'Asia/Tokyo'], {})).toThrow(
      /--upstream-zone goes with --upstream/,
    );
  });
});
