import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../service/app.ts';
import type { VendorBehaviour } from '../service/testing/vendor/behaviour.ts';
import {
  startVendorService,
  VENDOR_VARIANTS,
  type VendorService,
  type VendorVariant,
} from '../service/testing/vendor/vendor-service.ts';
import { run } from './cli/pipelinectl.ts';
import { PipelineClient, PipelineResult, ResultStatus } from './index.ts';

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

/** pipelinectl as a child process, its stdout, stderr and exit code. */
async function pipelinectl(
  vendorService: VendorService,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  // Asynchronously: the vendor double answers from this very process.
  return promisify(execFile)(
    process.execPath,
    [join(REPO_ROOT, 'src/kit/cli/pipelinectl.mjs'), ...args, '--url', vendorService.url],
    { env: { ...process.env, PIPELINE_API_KEY: vendorService.apiKey }, encoding: 'utf8' },
  ).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

/** A vendor double for one test, closed after it. */
async function withVendor<T>(
  variant: VendorVariant,
  behaviour: Partial<VendorBehaviour>,
  test: (vendorService: VendorService, vendorClient: PipelineClient) => Promise<T>,
): Promise<T> {
  const started = await startVendorService({ variant, behaviour });
  try {
    return await test(
      started,
      new PipelineClient({ baseUrl: started.url, apiKey: started.apiKey }),
    );
  } finally {
    await started.close();
  }
}

describe('answers that begin with a byte order mark', () => {
  it('reads XML and JSON, and a refusal in either, as if it were not there', async () => {
    await withVendor(VENDOR_VARIANTS.kanto, { bom: true }, async (v, c) => {
      v.addRequests('pl_1', 2);
      expect((await c.requestList({}, 'xml')).requests).toHaveLength(2);
      expect((await c.requestList({}, 'json')).requests).toHaveLength(2);
      await expect(c.resume('pl_404', 'json')).rejects.toMatchObject({
        serviceMessage: 'Pipeline pl_404 does not exist',
      });
    });
  });
});

describe('answers in the charsets of Japanese products', () => {
  const MISSING = 'パイプライン pl_404 は存在しません';

  for (const charset of ['shift_jis', 'euc-jp'] as const) {
    it(`reads a ${charset} refusal as the service wrote it: result, HttpError and pipelinectl`, async () => {
      // Inside a 200 ExecuteResponse (kanto) and as a 404 HTML page (pacific).
      await withVendor(VENDOR_VARIANTS.kanto, { charset, language: 'ja' }, async (v, c) => {
        const result = await c.put('/resume/xml', { pipelineid: 'pl_404' });
        expect(result.status()).toBe(ResultStatus.Error);
        expect(result.error().message).toBe(MISSING);
        await expect(c.resume('pl_404', 'xml')).rejects.toMatchObject({
          name: 'HttpError',
          serviceMessage: MISSING,
        });
        const ctl = await pipelinectl(v, 'resume', 'pl_404');
        expect(ctl).toMatchObject({ code: 1, stderr: `pipelinectl: refused ${MISSING}\n` });
      });
      await withVendor(VENDOR_VARIANTS.pacific, { charset, language: 'ja' }, async (v, c) => {
        const result = await c.put('/resume/xml', { pipelineid: 'pl_404' });
        expect(result.httpStatus).toBe(404);
        expect(result.error().message).toBe(`404 ${MISSING}`);
        await expect(c.resume('pl_404', 'xml')).rejects.toMatchObject({
          status: 404,
          serviceMessage: `404 ${MISSING}`,
        });
        const ctl = await pipelinectl(v, 'resume', 'pl_404');
        expect(ctl).toMatchObject({ code: 1, stderr: `pipelinectl: 404 ${MISSING}\n` });
      });
    });
  }

  it('believes a charset declared only in the document (XML declaration, HTML meta)', async () => {
    const behaviour = { charset: 'shift_jis', declare: 'document', language: 'ja' } as const;
    await withVendor(VENDOR_VARIANTS.kanto, behaviour, async (v, c) => {
      v.addRequests('pl_1', 1, 'broken.csv', 'failed');
      const day = (v.requests()[0]?.requestId ?? '').slice(5, 13);
      const page = await c.table('status', `STATUS${day}`, {}, 'xml');
      expect(page.rows[0]).toContain('ファイル broken.csv を読めません');
      const refused = await c.put('/requestretry/xml', { requestid: 'pl_1-20200101_00-000001' });
      expect(refused.error().message).toBe('リクエスト pl_1-20200101_00-000001 は存在しません');
    });
    await withVendor(VENDOR_VARIANTS.pacific, behaviour, async (_v, c) => {
      const refused = await c.put('/resume/xml', { pipelineid: 'pl_404' });
      expect(refused.contentType).toBe('text/html');
      expect(refused.error().message).toBe(`404 ${MISSING}`);
    });
  });

  it('reads a charset declared nowhere as the client is told: the charset option, --charset', async () => {
    const behaviour = { charset: 'euc-jp', declare: 'none', language: 'ja' } as const;
    await withVendor(VENDOR_VARIANTS.kanto, behaviour, async (v, c) => {
      // Unstated, the answer is UTF-8 by every standard: this one is not.
      expect((await c.put('/resume/xml', { pipelineid: 'pl_404' })).error().message).toContain(
        '\uFFFD',
      );
      const told = new PipelineClient({ baseUrl: v.url, apiKey: v.apiKey, charset: 'EUC-JP' });
      expect((await told.put('/resume/xml', { pipelineid: 'pl_404' })).error().message).toBe(
        MISSING,
      );
      const ctl = await pipelinectl(v, 'resume', 'pl_404', '--charset', 'euc-jp');
      expect(ctl).toMatchObject({ code: 1, stderr: `pipelinectl: refused ${MISSING}\n` });
      await expect(
        run(['version', '--charset', 'klingon', '--url', v.url], {}, () => undefined),
      ).rejects.toThrow('--charset klingon is not a charset this platform decodes');
    });
    // A stated charset wins over the option.
    await withVendor(VENDOR_VARIANTS.kanto, { charset: 'shift_jis', language: 'ja' }, async (v) => {
      const told = new PipelineClient({ baseUrl: v.url, apiKey: v.apiKey, charset: 'EUC-JP' });
      expect((await told.put('/resume/xml', { pipelineid: 'pl_404' })).error().message).toBe(
        MISSING,
      );
    });
  });

  it('believes the document over a UTF-8 header when the bytes are not UTF-8, past the first KiB', async () => {
    // A servlet container's default header over a product's own Shift_JIS: the first
    // non-ASCII name comes after a kilobyte of ASCII requests.
    const request = (n: number, name: string) =>
      `<Request><RequestId>pl_1-20261121_09-${String(n).padStart(6, '0')}</RequestId><PipelineId>pl_1</PipelineId><Name>${name}</Name><Status>Finish</Status><Stage>Complete</Stage><BeginDate>2026-11-21 09:00:00</BeginDate></Request>`;
    const body = `<?xml version="1.0" encoding="Shift_JIS"?><RequestList>${[1, 2, 3, 4, 5, 6, 7, 8]
      .map((n) => request(n, 'Sales'))
      .join(
        '',
      )}${request(9, '売上')}<Info><Index>0</Index><Prev>-1</Prev><Next>-1</Next><Count>9</Count><Error>false</Error><Date>20261121</Date><Id>pl_1</Id></Info></RequestList>`;
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/xml; charset=UTF-8' });
      res.end(iconv.encode(body, 'shift_jis'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const c = new PipelineClient({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      });
      expect(body.indexOf('売上')).toBeGreaterThan(1024);
      const list = await c.requestList({ date: '20261121' }, 'xml');
      expect(list.requests.map((r) => r.name).at(-1)).toBe('売上');
    } finally {
      server.close();
    }
  });
});

describe("a vendor's HTML answers", () => {
  it('reads its list as interfaces.md describes it: one row per pipeline, the cells in order', async () => {
    // In Shift_JIS, declared only in the page's meta: the cells are read as written.
    const behaviour = { charset: 'shift_jis', declare: 'document', language: 'ja' } as const;
    await withVendor(VENDOR_VARIANTS.kanto, behaviour, async (_v, c) => {
      const html = await c.get('/list/htm');
      expect(html.contentType).toBe('text/html');
      expect(html.status()).toBe(ResultStatus.OK);
      // The same as its XML, less the arguments, which the HTML form does not carry.
      const xml = (await c.get('/list/xml')).response()?.PipelineList as {
        PipeLine: Record<string, unknown>[];
      };
      expect(html.response()).toEqual({
        PipelineList: { PipeLine: xml.PipeLine.map(({ Args: _args, ...cells }) => cells) },
      });
      expect(html.response()?.PipelineList).toMatchObject({
        PipeLine: [{ Id: 'pl_1', Name: 'Sales' }, { Id: 'pl_2' }, { Id: 'pl_7' }],
      });
    });
  });

  it('reads markup a browser would: capitals, a header row, links and entities in cells', () => {
    const result = new PipelineResult(
      200,
      'text/html; charset=utf-8',
      `<HTML><BODY><div class="list"><TABLE border=1>
        <TR><TH>Id</TH><TH>Name</TH><TH>Runmode</TH><TH>Createdate</TH><TH>Updatedate</TH><TH>Description</TH></TR>
        <TR><TD><a href="/p/pl_3">pl_3</a></TD><TD>Orders &amp; returns</TD><TD>1</TD>
          <TD>2026/11/29 09:00:00</TD><TD>2026/11/29 09:10:00</TD><TD></TD></TR>
      </TABLE></div></BODY></HTML>`,
      'GET',
      'http://vendor.example/pipelineapi/list/htm',
    );
    expect(result.response()).toEqual({
      PipelineList: {
        PipeLine: [
          {
            Id: 'pl_3',
            Name: 'Orders & returns',
            Runmode: '1',
            Createdate: '2026/11/29 09:00:00',
            Updatedate: '2026/11/29 09:10:00',
            Description: '',
          },
        ],
      },
    });
  });

  it('invents no shape for an HTML answer interfaces.md does not show', async () => {
    await withVendor(VENDOR_VARIANTS.kanto, {}, async (v, c) => {
      v.addRequests('pl_1', 1);
      const html = await c.get('/requestlist/htm', { pagesize: '10' });
      expect(html.httpStatus).toBe(200);
      expect(html.response()).toBeUndefined();
      expect(html.status()).toBe(ResultStatus.Unknown);
    });
  });
});

describe('exec against a vendor, whose answer names no RequestId', () => {
  /** Moves the vendor's requests on every 100 ms while `during` runs. */
  const advancing = async <T>(v: VendorService, during: () => Promise<T>): Promise<T> => {
    const timer = setInterval(() => v.advance(), 100);
    try {
      return await during();
    } finally {
      clearInterval(timer);
    }
  };

  it('says the request was accepted and that the service named none', async () => {
    await withVendor(VENDOR_VARIANTS.kanto, {}, async (v) => {
      const ctl = await pipelinectl(v, 'exec', 'pl_1', '--file', 'daily.csv');
      expect(ctl).toMatchObject({
        code: 0,
        stdout: 'OK Success: accepted; the service named no request id\n',
      });
      const json = await pipelinectl(v, 'exec', 'pl_1', '--file', 'daily.csv', '--json');
      expect(JSON.parse(json.stdout)).toMatchObject({ status: 'OK', requestId: null });
      // Without --wait no list is asked for: exec costs one call, as before.
      expect(v.calls().requestlist ?? 0).toBe(0);
    });
  });

  it('--wait finds the new request in the day list and follows it to its end', async () => {
    await withVendor(VENDOR_VARIANTS.kanto, {}, async (v) => {
      v.addRequests('pl_1', 2);
      v.addRequests('pl_2', 1, 'daily.csv', 'waiting');
      const ctl = await advancing(v, () =>
        pipelinectl(v, 'exec', 'pl_1', '--file', 'daily.csv', '--wait'),
      );
      const id = v.requests()[0]?.requestId as string;
      expect(v.requests()[0]).toMatchObject({ pipelineId: 'pl_1', status: 'Finish' });
      expect(ctl.code).toBe(0);
      const [started, ended] = ctl.stdout.split('\n');
      expect(started).toBe(
        `OK Success ${id} (the service named no request id; it is the one new request of pl_1 in its list of the day)`,
      );
      expect(ended).toMatch(
        new RegExp(
          `^${id} ended Finish \\(Complete\\) at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d$`,
        ),
      );
      expect(ctl.stderr).toContain(`${id} Finish (Complete)\n`);
    });
  });

  it('--wait exits 1 when the request ends failing, 0 when its status is an --ok-status', async () => {
    await withVendor(VENDOR_VARIANTS.kanto, {}, async (v) => {
      const failed = await advancing(v, () =>
        pipelinectl(v, 'exec', 'pl_1', '--file', 'fail.csv', '--wait'),
      );
      expect(failed.code).toBe(1);
      expect(failed.stdout.split('\n')[1]).toMatch(
        /^pl_1-\S+ ended Abort \(Joint\) at .+: failed \(ok is Finish\)$/,
      );
      const accepted = await advancing(v, () =>
        pipelinectl(
          v,
          'exec',
          'pl_1',
          '--file',
          'fail.csv',
          '--wait',
          '--ok-status',
          'Finish,Abort',
        ),
      );
      expect(accepted.code).toBe(0);
    });
  });

  it('--wait stops at --wait-timeout with exit 3, naming the status it saw', async () => {
    await withVendor(VENDOR_VARIANTS.pacific, {}, async (v) => {
      const ctl = await pipelinectl(
        v,
        'exec',
        'pl_2',
        '--file',
        'daily.csv',
        '--wait',
        '--wait-timeout',
        '0.6',
      );
      expect(ctl.code).toBe(3);
      expect(ctl.stdout.split('\n')[1]).toMatch(/^pl_2-\S+ has not ended after 0\.6 s: Queued$/);
      await expect(
        run(
          ['exec', 'pl_2', '--file', 'a.csv', '--wait', '--wait-timeout', 'soon', '--url', v.url],
          {},
          () => undefined,
        ),
      ).rejects.toThrow("--wait-timeout takes a number of seconds (0 = no limit), not 'soon'");
    });
  });

  it('--wait says plainly when the day list shows more than one new request', async () => {
    await withVendor(VENDOR_VARIANTS.kanto, {}, async (v) => {
      // Another client starts a request of the same pipeline while this exec is answered.
      v.setDelay(150);
      const before = v.calls().exec ?? 0;
      const other = setInterval(() => {
        if ((v.calls().exec ?? 0) > before) {
          clearInterval(other);
          v.addRequests('pl_1', 1, 'other.csv', 'waiting');
        }
      }, 5);
      const ctl = await pipelinectl(v, 'exec', 'pl_1', '--file', 'daily.csv', '--wait');
      clearInterval(other);
      const ids = v.requests().map((r) => r.requestId);
      expect(ids).toHaveLength(2);
      expect(ctl.code).toBe(3);
      expect(ctl.stdout).toContain(
        'OK Success: accepted; the service named no request id, and its list of the day shows 2 new requests of pl_1',
      );
      expect(ctl.stdout).toContain('cannot tell which to follow');
    });
  });

  it('is there for other clients in the kit: startRequest and followRequest', async () => {
    await withVendor(VENDOR_VARIANTS.pacific, {}, async (v, c) => {
      const plain = await c.startRequest('pl_1', 'daily.csv', {}, { format: 'xml' });
      expect(plain).toMatchObject({ status: 'OK', requestId: undefined, requestIdFrom: undefined });
      const found = await c.startRequest('pl_1', 'daily.csv', {}, { format: 'xml', find: true });
      expect(found).toMatchObject({
        requestIdFrom: 'list',
        requestId: v.requests()[0]?.requestId,
        newRequestIds: [v.requests()[0]?.requestId],
      });
      const seen: string[] = [];
      const followed = await advancing(v, () =>
        c.followRequest(found.requestId as string, {
          format: 'xml',
          pollMs: 50,
          onChange: (d) => seen.push(d.status),
        }),
      );
      expect(followed).toMatchObject({ outcome: 'ok', detail: { status: 'Finish' } });
      expect(seen.at(-1)).toBe('Finish');
      expect(seen.slice(0, -1).every((s) => ['Queued', 'Process'].includes(s))).toBe(true);
    });
  });
});

describe('NULL and empty cells of a vendor table', () => {
  it("stay null and '' in pipelinectl's JSON, read from the vendor's XML by default", async () => {
    await withVendor(VENDOR_VARIANTS.kanto, {}, async (v) => {
      const cells = async (...wire: string[]) => {
        let out = '';
        expect(
          await run(
            ['db', 'action', 'SALES', '--json', ...wire, '--url', v.url, '--key', v.apiKey],
            {},
            (t) => (out += t),
          ),
        ).toBe(0);
        return (JSON.parse(out) as { rows: (string | null)[][] }).rows.map((r) => r[1]);
      };
      expect(await cells()).toEqual(['JP', null, '']);
      expect(await cells('--wire', 'xml')).toEqual(['JP', null, '']);
      // This vendor's own JSON writes a NULL as '': nothing in it tells them apart.
      expect(await cells('--wire', 'json')).toEqual(['JP', '', '']);
      let text = '';
      await run(
        ['db', 'action', 'SALES', '--url', v.url, '--key', v.apiKey],
        {},
        (t) => (text += t),
      );
      expect(text.split('\n').slice(3, 6)).toEqual([
        '1   JP      120',
        '2   NULL    80',
        '3           5',
      ]);
    });
  });
});

describe('pipelinectl options', () => {
  it('refuses a number option that is not one, naming it', async () => {
    const ctl = (...args: string[]) =>
      run([...args, '--url', 'http://127.0.0.1:9'], {}, () => undefined);
    await expect(ctl('version', '--timeout', 'abc')).rejects.toThrow(
      /^--timeout takes a whole number of milliseconds .*, not 'abc'$/,
    );
    await expect(ctl('db', 'action', 'SALES', '--page-size', 'ten')).rejects.toThrow(
      "--page-size takes a whole number from 1, not 'ten'",
    );
    await expect(ctl('requests', '--index=-1')).rejects.toThrow(
      "--index takes a whole number from 0, not '-1'",
    );
  });
});
