import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PipelineClient, xmlToTree } from '../../../kit/index.ts';
import {
  DEFAULT_BEHAVIOUR,
  startVendorService,
  VENDOR_VARIANTS,
  type VendorBehaviour,
  type VendorService,
  type VendorVariant,
} from './vendor-service.ts';

// The double stands in for the vendor: it must answer as interfaces.md shows (the kit
// reads it), and differ from our contract where interfaces.md is silent.

describe.each(Object.values(VENDOR_VARIANTS))(
  'the vendor-like service, variant $name',
  (variant) => {
    let vendor: VendorService;
    let client: PipelineClient;

    beforeAll(async () => {
      vendor = await startVendorService({ variant });
      client = new PipelineClient({ baseUrl: vendor.url, apiKey: vendor.apiKey });
    });

    afterAll(async () => {
      await vendor.close();
    });

    it('lists pipelines as interfaces.md shows, with dates in its own zone', async () => {
      const pipelines = await client.listPipelines('xml');
      expect(pipelines.map((p) => p.id)).toEqual(['pl_1', 'pl_2', 'pl_7']);
      expect(pipelines[0]?.args).toEqual([{ name: 'region', value: 'JP' }]);
      expect(pipelines[0]?.created?.zone).toBe(variant.zone.abbreviation);
      expect(pipelines[0]?.createdate).toMatch(
        new RegExp(`^\\d{4}-\\d{2}-\\d{2}T[\\d:.]+ ${variant.zone.abbreviation}$`),
      );
      expect(await client.version('xml')).toBe(variant.version);
    });

    it('executes without a RequestId, and runs the request through its own status words', async () => {
      const started = await client.exec('pl_1', 'sales.csv', {}, 'xml');
      expect(started.requestId).toBeUndefined();
      const list = await client.requestList({}, 'xml');
      expect(list.info.total).toBeUndefined();
      const [request] = list.requests;
      expect(request?.status).toBe(variant.status.waiting);
      for (let i = 0; i < 4; i++) vendor.advance();
      const detail = await client.requestDetail(
        request?.requestId as string,
        { requestLog: true },
        'xml',
      );
      expect(detail.status).toBe(variant.status.done);
      expect(detail.stage).toBe('Complete');
      expect(detail.requestLog?.length).toBeGreaterThan(3);
    });

    it('refuses in its own way: a 2xx ExecuteResponse without Code, or a bare HTTP error', async () => {
      const response = await fetch(`${vendor.url}/pipelineapi/requestretry/xml?requestid=none`, {
        method: 'PUT',
        headers: { 'X-Pipelinewebapi': vendor.apiKey },
      });
      const text = await response.text();
      if (variant.failures === 'envelope') {
        expect(response.status).toBe(200);
        const tree = xmlToTree(text) as { ExecuteResponse: Record<string, unknown> };
        expect(tree.ExecuteResponse.Status).toBe('Error');
        expect(tree.ExecuteResponse.Message).toBe('Request none does not exist');
        expect(tree.ExecuteResponse.Code).toBeUndefined();
      } else {
        expect(response.status).toBe(404);
        expect(response.headers.get('content-type')).toBe('text/html; charset=UTF-8');
        expect(text).toContain('Request none does not exist');
      }
    });

    it('pages nothing: no index, no Total, Next always -1', async () => {
      vendor.addRequests('pl_2', 150);
      const response = await fetch(
        `${vendor.url}/pipelineapi/requestlist/xml?pagesize=1000&index=100`,
        {
          headers: { 'X-Pipelinewebapi': vendor.apiKey },
        },
      );
      const tree = xmlToTree(await response.text()) as {
        RequestList: { Request: unknown[]; Info: Record<string, unknown> };
      };
      expect(tree.RequestList.Request.length).toBeGreaterThanOrEqual(151);
      expect(tree.RequestList.Info).toMatchObject({ Index: 0, Next: -1 });
      expect(tree.RequestList.Info.Total).toBeUndefined();
    });

    it('tells NULL from empty only in XML (isnull), and writes JSON in its own loose shape', async () => {
      const page = await client.table('action', 'SALES', {}, 'xml');
      expect(page.rows.map((r) => r[1])).toEqual(['JP', null, '']);
      const json = await fetch(`${vendor.url}/pipelineapi/version/json`, {
        headers: { 'X-Pipelinewebapi': vendor.apiKey },
      });
      expect(json.headers.get('content-type')).toBe('text/javascript; charset=UTF-8');
      const list = (await (
        await fetch(`${vendor.url}/pipelineapi/list/json`, {
          headers: { 'X-Pipelinewebapi': vendor.apiKey },
        })
      ).json()) as { PipelineList: { PipeLine: { Args?: { Item: unknown } }[] } };
      // One Args item is an object, not an array of one: not our contract's JSON.
      expect(Array.isArray(list.PipelineList.PipeLine[0]?.Args?.Item)).toBe(false);
    });
  },
);

// Each switch alone, against real HTTP: what it changes, and that the default is the
// double every older test was written against.

const started: VendorService[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((vendor) => vendor.close()));
});

async function start(
  behaviour: Partial<VendorBehaviour> = {},
  variant: VendorVariant = VENDOR_VARIANTS.kanto,
): Promise<VendorService> {
  const vendor = await startVendorService({ variant, behaviour });
  started.push(vendor);
  return vendor;
}

function call(
  vendor: VendorService,
  path: string,
  init: { method?: string; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  return fetch(`${vendor.url}/pipelineapi/${path}`, {
    ...init,
    headers: { 'X-Pipelinewebapi': vendor.apiKey, ...init.headers },
  });
}

interface ListTree {
  RequestList: {
    Request: { RequestId: string; BeginDate: string }[];
    Info: Record<string, unknown>;
  };
}

interface ResultTree {
  Result: { Info: Record<string, unknown>; Record: { Item: (string | number | null)[] }[] };
}

async function list(vendor: VendorService, query = ''): Promise<ListTree['RequestList']> {
  const response = await call(vendor, `requestlist/xml${query}`);
  return (xmlToTree(await response.text()) as unknown as ListTree).RequestList;
}

async function table(vendor: VendorService, query: string): Promise<ResultTree['Result']> {
  const response = await call(vendor, `actiondb/xml${query}`);
  return (xmlToTree(await response.text()) as unknown as ResultTree).Result;
}

describe('the switches of the vendor-like service', () => {
  it('start as the double was, each given alone keeps the others', async () => {
    const vendor = await start();
    expect(vendor.behaviour).toEqual(DEFAULT_BEHAVIOUR);
    const paged = await start({ pagesize: 'ignored' });
    expect(paged.behaviour).toEqual({ ...DEFAULT_BEHAVIOUR, pagesize: 'ignored' });
    expect(Object.isFrozen(paged.behaviour)).toBe(true);
    const unset = await start({ pagesize: undefined, gzip: undefined });
    expect(unset.behaviour).toEqual(DEFAULT_BEHAVIOUR);
  });

  describe('pagesize', () => {
    it('honoured: pagesize rows up to 1000, 100 when not given', async () => {
      const vendor = await start();
      vendor.addRequests('pl_1', 1200);
      expect((await list(vendor, '?pagesize=10')).Request).toHaveLength(10);
      expect((await list(vendor)).Request).toHaveLength(100);
      expect((await list(vendor, '?pagesize=5000')).Request).toHaveLength(1000);
    });

    it('ignored: every row of the day in one answer, whatever pagesize says', async () => {
      const vendor = await start({ pagesize: 'ignored' });
      vendor.addRequests('pl_1', 1200);
      const page = await list(vendor, '?pagesize=10');
      expect(page.Request).toHaveLength(1200);
      expect(page.Info.Count).toBe(1200);
      vendor.addTableRows('SALES', 1250);
      expect((await table(vendor, '?tablename=SALES&pagesize=10')).Record).toHaveLength(1253);
    });

    it('capped: min(pagesize, cap)', async () => {
      const vendor = await start({ pagesize: { cap: 250 } });
      vendor.addRequests('pl_1', 400);
      expect((await list(vendor, '?pagesize=1000')).Request).toHaveLength(250);
      expect((await list(vendor, '?pagesize=40')).Request).toHaveLength(40);
      expect((await list(vendor)).Request).toHaveLength(100);
    });
  });

  describe('index', () => {
    it('honoured: skips that many rows, in requestlist, statusdb and actiondb', async () => {
      const vendor = await start({ index: true });
      vendor.addRequests('pl_1', 300);
      const page = await list(vendor, '?pagesize=50&index=100');
      expect(page.Request.map((r) => r.RequestId)).toEqual(
        vendor
          .requests()
          .slice(100, 150)
          .map((r) => r.requestId),
      );
      expect(page.Info.Index).toBe(100);
      const day = vendor.requests()[0]?.requestId.slice(5, 13);
      const status = (
        xmlToTree(
          await (await call(vendor, `statusdb/xml?tablename=STATUS${day}&index=299`)).text(),
        ) as unknown as ResultTree
      ).Result;
      expect(status.Record.map((r) => r.Item[0])).toEqual([vendor.requests()[299]?.requestId]);
      const rows = await table(vendor, '?tablename=SALES&index=2');
      expect(rows.Record.map((r) => r.Item[0])).toEqual(['3']);
    });

    it("'pages': a page number, told in Info as pages too", async () => {
      const vendor = await start({ index: 'pages', next: 'stated' });
      vendor.addRequests('pl_1', 300);
      const page = await list(vendor, '?pagesize=50&index=2');
      expect(page.Request.map((r) => r.RequestId)).toEqual(
        vendor
          .requests()
          .slice(100, 150)
          .map((r) => r.requestId),
      );
      expect(page.Info).toMatchObject({ Index: 2, Prev: 1, Next: 3, Count: 50 });
      expect((await list(vendor, '?pagesize=50&index=6')).Request ?? []).toHaveLength(0);
      const rows = await table(vendor, '?tablename=SALES&pagesize=2&index=1');
      expect(rows.Record.map((r) => r.Item[0])).toEqual(['3']);
    });

    it('ignored: every answer starts at the first row', async () => {
      const vendor = await start();
      vendor.addRequests('pl_1', 300);
      const page = await list(vendor, '?pagesize=50&index=100');
      expect(page.Request[0]?.RequestId).toBe(vendor.requests()[0]?.requestId);
      expect(page.Info.Index).toBe(0);
    });
  });

  it("lists a day newest first, or oldest first with order 'oldest'", async () => {
    const newest = await start();
    const oldest = await start({ order: 'oldest' });
    for (const vendor of [newest, oldest]) vendor.addRequests('pl_1', 3);
    const ids = async (vendor: VendorService) =>
      (await list(vendor)).Request.map((r) => r.RequestId);
    expect(await ids(newest)).toEqual(newest.requests().map((r) => r.requestId));
    expect(await ids(oldest)).toEqual(
      oldest
        .requests()
        .map((r) => r.requestId)
        .reverse(),
    );
  });

  it('writes Runmode in its own words when told, and a suspend or resume changes it', async () => {
    const words = async (vendor: VendorService) => {
      const client = new PipelineClient({ baseUrl: vendor.url, apiKey: vendor.apiKey });
      return (await client.listPipelines('xml')).map((p) => p.runmode);
    };
    expect(await words(await start())).toEqual(['run', 'run', 'stop']);
    const upper = await start({ runmodeWords: 'upper' });
    expect(await words(upper)).toEqual(['RUNNING', 'RUNNING', 'SUSPENDED']);
    await new PipelineClient({ baseUrl: upper.url, apiKey: upper.apiKey }).suspend('pl_1');
    expect(await words(upper)).toEqual(['SUSPENDED', 'RUNNING', 'SUSPENDED']);
    expect(await words(await start({ runmodeWords: 'own' }))).toEqual([
      '稼働中',
      '稼働中',
      '停止中',
    ]);
  });

  describe('next and total', () => {
    it("'stated' tells the index of the next row and the previous page, -1 at the ends", async () => {
      const vendor = await start({ next: 'stated', index: true, total: true });
      vendor.addRequests('pl_1', 150);
      expect((await list(vendor)).Info).toMatchObject({
        Index: 0,
        Prev: -1,
        Next: 100,
        Count: 100,
        Total: 150,
      });
      expect((await list(vendor, '?index=100')).Info).toMatchObject({
        Index: 100,
        Prev: 0,
        Next: -1,
        Count: 50,
        Total: 150,
      });
      expect((await table(vendor, '?tablename=SALES&pagesize=2')).Info).toMatchObject({
        Next: 2,
        Total: 3,
      });
    });

    it("'always-1' hides that rows were left out; 'absent' has no Next or Prev", async () => {
      const always = await start();
      always.addRequests('pl_1', 150);
      const info = (await list(always)).Info;
      expect(info).toMatchObject({ Next: -1, Prev: -1, Count: 100 });
      expect(info.Total).toBeUndefined();
      const absent = await start({ next: 'absent' });
      absent.addRequests('pl_1', 150);
      const text = await (await call(absent, 'requestlist/xml')).text();
      expect(text).not.toMatch(/<Next>|<Prev>/);
      expect(text).toContain('<Info><Index>0</Index><Count>100</Count><Error>');
    });
  });

  describe('charset, declare and language', () => {
    it('begins UTF-8 bodies with a byte order mark when asked, as .NET writes them', async () => {
      const vendor = await start({ bom: true });
      const bytes = new Uint8Array(await (await call(vendor, 'version/xml')).arrayBuffer());
      expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      expect(new TextDecoder().decode(bytes)).toMatch(/^<\?xml /);
    });

    it.each(['shift_jis', 'euc-jp'] as const)(
      'writes %s: Japanese refusals and request errors read back with that decoder',
      async (charset) => {
        const vendor = await start({ charset, language: 'ja' }, VENDOR_VARIANTS.pacific);
        const refused = await call(vendor, 'requestretry/xml?requestid=none', { method: 'PUT' });
        const label = charset === 'shift_jis' ? 'Shift_JIS' : 'EUC-JP';
        expect(refused.status).toBe(404);
        expect(refused.headers.get('content-type')).toBe(`text/html; charset=${label}`);
        const bytes = new Uint8Array(await refused.arrayBuffer());
        const page = new TextDecoder(charset).decode(bytes);
        expect(page).toContain('リクエスト none は存在しません');
        expect(page).toContain(`<meta charset="${label}">`);
        expect(new TextDecoder('utf-8').decode(bytes)).not.toContain('リクエスト');
        vendor.addRequests('pl_1', 1, 'daily.csv', 'failed');
        const detail = await call(
          vendor,
          `requestdetail/xml?requestid=${vendor.requests()[0]?.requestId}&requestlog=true`,
        );
        const xml = new TextDecoder(charset).decode(await detail.arrayBuffer());
        expect(xml.startsWith(`<?xml version="1.0" encoding="${label}"?>`)).toBe(true);
        expect(vendor.requests()[0]?.errorMsg).toBe('ファイル daily.csv を読めません');
        const text = await (
          await call(vendor, `statusdb/xml?tablename=STATUS${xml.match(/-(\d{8})_/)?.[1]}`)
        ).arrayBuffer();
        expect(new TextDecoder(charset).decode(text)).toContain(
          '<Item>ファイル daily.csv を読めません</Item>',
        );
      },
    );

    it('tells envelope refusals in Japanese inside the XML', async () => {
      const vendor = await start({ charset: 'shift_jis', language: 'ja' });
      const refused = await call(vendor, 'resume/xml?pipelineid=pl_404', { method: 'PUT' });
      const tree = xmlToTree(new TextDecoder('shift_jis').decode(await refused.arrayBuffer())) as {
        ExecuteResponse: Record<string, unknown>;
      };
      expect(tree.ExecuteResponse).toMatchObject({
        Status: 'Error',
        Message: 'パイプライン pl_404 は存在しません',
      });
    });

    it('declares the charset where told, or nowhere', async () => {
      const declared = async (declare: VendorBehaviour['declare']) => {
        const vendor = await start({ charset: 'euc-jp', declare });
        const xml = await call(vendor, 'version/xml');
        const htm = await call(vendor, 'list/htm');
        return {
          xmlType: xml.headers.get('content-type'),
          prolog: /^<\?xml[^>]*\?>/.exec(await xml.text())?.[0],
          htmType: htm.headers.get('content-type'),
          meta: (await htm.text()).includes('<meta charset="EUC-JP">'),
        };
      };
      expect(await declared('both')).toEqual({
        xmlType: 'text/xml; charset=EUC-JP',
        prolog: '<?xml version="1.0" encoding="EUC-JP"?>',
        htmType: 'text/html; charset=EUC-JP',
        meta: true,
      });
      expect(await declared('content-type')).toEqual({
        xmlType: 'text/xml; charset=EUC-JP',
        prolog: '<?xml version="1.0"?>',
        htmType: 'text/html; charset=EUC-JP',
        meta: false,
      });
      expect(await declared('document')).toEqual({
        xmlType: 'text/xml',
        prolog: '<?xml version="1.0" encoding="EUC-JP"?>',
        htmType: 'text/html',
        meta: true,
      });
      expect(await declared('none')).toEqual({
        xmlType: 'text/xml',
        prolog: '<?xml version="1.0"?>',
        htmType: 'text/html',
        meta: false,
      });
    });
  });

  describe('dates', () => {
    const DAY = String.raw`\d{4}-\d\d-\d\d`;
    const SLASHED = String.raw`\d{4}/\d\d/\d\d`;
    const TIME = String.raw`\d\d:\d\d:\d\d`;
    const whole = (...parts: string[]) => new RegExp(`^${parts.join('')}$`);
    /** BeginDate and the like, a request log's Date, an application log's Date. */
    const forms: Record<VendorBehaviour['dates'], [RegExp, RegExp, RegExp]> = {
      dash: [whole(DAY, ' ', TIME), whole(SLASHED, ' ', TIME), whole(TIME)],
      slash: [whole(SLASHED, ' ', TIME), whole(SLASHED, ' ', TIME), whole(TIME)],
      iso: [whole(DAY, 'T', TIME), whole(DAY, 'T', TIME), whole(TIME)],
      millis: [
        whole(DAY, ' ', TIME, String.raw`\.\d{3}`),
        whole(DAY, ' ', TIME, String.raw`\.\d{3}`),
        whole(TIME, String.raw`\.\d{3}`),
      ],
      zoned: [whole(DAY, ' ', TIME, ' JST'), whole(DAY, ' ', TIME, ' JST'), whole(TIME, ' JST')],
    };
    it.each(Object.entries(forms))(
      "'%s' shapes BeginDate, BeginTime, EndTime and log Dates, not request ids",
      async (dates, [form, logForm, timeForm]) => {
        const vendor = await start({ dates: dates as VendorBehaviour['dates'] });
        vendor.addRequests('pl_1', 1);
        const [request] = (await list(vendor)).Request;
        expect(request?.BeginDate).toMatch(form);
        expect(request?.RequestId).toMatch(/^pl_1-\d{8}_\d\d-000001$/);
        const detail = xmlToTree(
          await (
            await call(
              vendor,
              `requestdetail/xml?requestid=${request?.RequestId}&requestlog=true&applog=true`,
            )
          ).text(),
        ) as {
          RequestDetail: {
            BeginTime: string;
            EndTime: string;
            RequestLog: { Log: { Date: string }[] };
            AppLog: { Log: { Date: string }[] };
          };
        };
        expect(detail.RequestDetail.BeginTime).toMatch(form);
        expect(detail.RequestDetail.EndTime).toMatch(form);
        expect(detail.RequestDetail.RequestLog.Log[0]?.Date).toMatch(logForm);
        expect(detail.RequestDetail.AppLog.Log[0]?.Date).toMatch(timeForm);
      },
    );
  });

  describe('load', () => {
    it('answers latencyMs late, unless setDelay says otherwise', async () => {
      const vendor = await start({ latencyMs: 200 });
      let begun = performance.now();
      await (await call(vendor, 'version/xml')).text();
      expect(performance.now() - begun).toBeGreaterThanOrEqual(190);
      vendor.setDelay(0);
      begun = performance.now();
      await (await call(vendor, 'version/xml')).text();
      expect(performance.now() - begun).toBeLessThan(150);
    });

    it('refuses a call beyond its concurrency with 503 and Retry-After', async () => {
      const vendor = await start({ concurrency: 1, latencyMs: 300 }, VENDOR_VARIANTS.pacific);
      const first = call(vendor, 'version/xml');
      await new Promise((resolve) => setTimeout(resolve, 50));
      const second = await call(vendor, 'version/xml');
      expect(second.status).toBe(503);
      expect(second.headers.get('retry-after')).toBe('1');
      expect(second.headers.get('content-type')).toBe('text/plain; charset=UTF-8');
      expect(await second.text()).toBe('Too many calls at once, retry later');
      expect((await first).status).toBe(200);
      expect(vendor.maxInFlight()).toBe(2);
      expect(vendor.calls().version).toBe(2);
      // The slot is free again once the first answer is out.
      expect((await call(vendor, 'version/xml')).status).toBe(200);
    });

    it('counts the most calls in flight at once, unlimited by default', async () => {
      const vendor = await start({ latencyMs: 100 });
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => call(vendor, 'list/xml').then((r) => r.status)),
      );
      expect(answers).toEqual([200, 200, 200, 200, 200]);
      expect(vendor.maxInFlight()).toBe(5);
    });
  });

  describe('echoKey', () => {
    it('repeats a refused key in the 401 body, or in the envelope Message', async () => {
      const wrong = { headers: { 'X-Pipelinewebapi': 'wrong-key-42' } };
      const http = await start({ echoKey: true }, VENDOR_VARIANTS.pacific);
      const refused = await call(http, 'list/xml', wrong);
      expect(refused.status).toBe(401);
      expect(await refused.text()).toBe('Invalid key wrong-key-42');
      const envelope = await start({ echoKey: true });
      const told = xmlToTree(await (await call(envelope, 'list/xml', wrong)).text()) as {
        ExecuteResponse: Record<string, unknown>;
      };
      expect(told.ExecuteResponse.Message).toBe('Invalid key wrong-key-42');
      const quiet = await start({}, VENDOR_VARIANTS.pacific);
      expect(await (await call(quiet, 'list/xml', wrong)).text()).toBe('Invalid API key');
    });

    it('shows the request headers, key and all, on a 500 page', async () => {
      const vendor = await start({ echoKey: true }, VENDOR_VARIANTS.pacific);
      vendor.setFault('error');
      const failed = await call(vendor, 'list/xml');
      expect(failed.status).toBe(500);
      expect(failed.headers.get('content-type')).toBe('text/html; charset=UTF-8');
      expect(await failed.text()).toContain(`X-Pipelinewebapi: ${vendor.apiKey}`);
      const envelope = await start({ echoKey: true });
      envelope.setFault('error');
      const told = await (await call(envelope, 'list/xml')).text();
      expect(told).toContain('<Status>SystemError</Status>');
      expect(told).toContain(vendor.apiKey);
      const quiet = await start({}, VENDOR_VARIANTS.pacific);
      quiet.setFault('error');
      expect(await (await call(quiet, 'list/xml')).text()).toBe('System error');
    });
  });

  describe('sessionId', () => {
    it('sets a SESSIONID of its own per start, and takes it in place of the key', async () => {
      const cookieOf = async (vendor: VendorService) =>
        /SESSIONID=([^;]+); Path=\//.exec(
          (await call(vendor, 'version/xml')).headers.get('set-cookie') ?? '',
        )?.[1];
      const one = await start();
      const other = await start();
      const cookie = await cookieOf(one);
      expect(cookie).toMatch(/^vendor-session-[0-9a-f]{24}$/);
      expect(await cookieOf(other)).not.toBe(cookie);
      const byCookie = await fetch(`${one.url}/pipelineapi/version/xml`, {
        headers: { Cookie: `SESSIONID=${cookie}` },
      });
      expect(await byCookie.text()).toContain('<Version>');
    });

    it('false: never sets one, and a cookie alone is refused', async () => {
      const vendor = await start({ sessionId: false }, VENDOR_VARIANTS.pacific);
      expect((await call(vendor, 'version/xml')).headers.get('set-cookie')).toBeNull();
      const byCookie = await fetch(`${vendor.url}/pipelineapi/version/xml`, {
        headers: { Cookie: 'SESSIONID=vendor-session' },
      });
      expect(byCookie.status).toBe(401);
    });
  });

  describe('gzip', () => {
    it('compresses when Accept-Encoding allows it, and only then', async () => {
      const vendor = await start({ gzip: true });
      vendor.addRequests('pl_1', 50);
      const zipped = await call(vendor, 'requestlist/xml', {
        headers: { 'Accept-Encoding': 'gzip' },
      });
      expect(zipped.headers.get('content-encoding')).toBe('gzip');
      expect(zipped.headers.get('vary')).toBe('Accept-Encoding');
      expect(
        (xmlToTree(await zipped.text()) as unknown as ListTree).RequestList.Request,
      ).toHaveLength(50);
      const plain = await call(vendor, 'requestlist/xml', {
        headers: { 'Accept-Encoding': 'gzip;q=0, identity' },
      });
      expect(plain.headers.get('content-encoding')).toBeNull();
      expect(await plain.text()).toContain('<RequestList>');
      const never = await start();
      const unzipped = await call(never, 'version/xml', { headers: { 'Accept-Encoding': 'gzip' } });
      expect(unzipped.headers.get('content-encoding')).toBeNull();
    });
  });

  describe('faults', () => {
    it('truncated: tells the whole length, then hangs up halfway', async () => {
      const vendor = await start();
      vendor.addRequests('pl_1', 100);
      const whole = (await (await call(vendor, 'requestlist/xml')).arrayBuffer()).byteLength;
      vendor.setFault('truncated');
      const cut = await call(vendor, 'requestlist/xml');
      expect(cut.status).toBe(200);
      expect(Number(cut.headers.get('content-length'))).toBe(whole);
      await expect(cut.arrayBuffer()).rejects.toThrow();
      vendor.setFault(undefined);
      expect((await call(vendor, 'requestlist/xml')).status).toBe(200);
    });

    it('endless: a 200 that goes on until the client leaves', async () => {
      const vendor = await start();
      vendor.setFault('endless', { apis: ['requestlist'] });
      const leave = new AbortController();
      const endless = await call(vendor, 'requestlist/xml', { signal: leave.signal });
      expect(endless.status).toBe(200);
      const reader = (endless.body as ReadableStream<Uint8Array>).getReader();
      let text = '';
      while ((text.match(/<\/Request>/g) ?? []).length < 3) {
        const { value, done } = await reader.read();
        expect(done).toBe(false);
        text += new TextDecoder().decode(value);
      }
      leave.abort();
      // Other apis are untouched by a fault given for requestlist.
      expect(await (await call(vendor, 'version/xml')).text()).toContain('<Version>');
    });

    it('malformed: a 200 text/xml that no XML reader accepts', async () => {
      const vendor = await start();
      vendor.setFault('malformed');
      const broken = await call(vendor, 'list/xml');
      expect(broken.status).toBe(200);
      expect(broken.headers.get('content-type')).toBe('text/xml');
      const text = await broken.text();
      expect(text).toContain('<RequestList><Request>');
      expect(() => xmlToTree(text)).toThrow();
    });

    it('huge: streams 200 MiB by default, well-formed, without holding them', async () => {
      const vendor = await start();
      const bytes = 200 * 1024 * 1024;
      vendor.setFault('huge', { apis: ['requestlist'] });
      const before = process.memoryUsage.rss();
      let peak = before;
      const huge = await call(vendor, 'requestlist/xml');
      expect(Number(huge.headers.get('content-length'))).toBe(bytes);
      const reader = (huge.body as ReadableStream<Uint8Array>).getReader();
      let received = 0;
      let head = '';
      let tail: Uint8Array = new Uint8Array();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        if (head.length < 200) head += new TextDecoder().decode(value.subarray(0, 200));
        tail = value;
        received += value.byteLength;
        peak = Math.max(peak, process.memoryUsage.rss());
      }
      expect(received).toBe(bytes);
      expect(head.startsWith('<?xml version="1.0" encoding="UTF-8"?><RequestList><Request>')).toBe(
        true,
      );
      expect(new TextDecoder().decode(tail)).toMatch(/<\/Info><\/RequestList>$/);
      // Read chunks wait for the collector, so RSS grows some: far less than the body.
      expect(peak - before).toBeLessThan(bytes / 2);
      console.log(
        `huge: ${bytes} bytes streamed, RSS grew by ${Math.round((peak - before) / 1024 / 1024)} MiB`,
      );
    });

    it('huge: exactly the bytes asked for, for any api, and it parses', async () => {
      const vendor = await start();
      vendor.setFault('huge', { bytes: 5000 });
      const small = await (await call(vendor, 'requestlist/xml')).text();
      expect(small).toHaveLength(5000);
      const tree = xmlToTree(small) as unknown as ListTree;
      expect(tree.RequestList.Request.length).toBe(tree.RequestList.Info.Count);
      const other = await (await call(vendor, 'version/xml')).text();
      expect(other).toHaveLength(5000);
      expect(() => xmlToTree(other)).not.toThrow();
    });
  });

  describe('size', () => {
    it('appends generated rows to an action table', async () => {
      const vendor = await start({ total: true });
      vendor.addTableRows('SALES', 1250);
      const page = await table(vendor, '?tablename=SALES&pagesize=1000');
      expect(page.Info).toMatchObject({ Count: 1000, Total: 1253 });
      expect(page.Record[3]?.Item[0]).toBe('4');
      expect(() => vendor.addTableRows('NOPE', 1)).toThrow();
    });

    it('holds 100,000 requests of one day, and answers them in one page when told', async () => {
      const vendor = await start({ pagesize: 'ignored', total: true });
      let begun = performance.now();
      vendor.addRequests('pl_1', 100_000);
      const added = performance.now() - begun;
      expect(vendor.requests()).toHaveLength(100_000);
      const newest = vendor.requests()[0];
      expect(newest?.requestId).toMatch(/-100000$/);
      begun = performance.now();
      const text = await (await call(vendor, 'requestlist/xml')).text();
      const answered = performance.now() - begun;
      expect(text.split('<Request>').length - 1).toBe(100_000);
      expect(text).toContain('<Count>100000</Count><Total>100000</Total>');
      const detail = await call(vendor, `requestdetail/xml?requestid=${newest?.requestId}`);
      expect(await detail.text()).toContain(`<RequestId>${newest?.requestId}</RequestId>`);
      console.log(
        `100,000 requests: added in ${Math.round(added)} ms, one requestlist answer of ${text.length} bytes in ${Math.round(answered)} ms`,
      );
    });
  });
});
