import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startGatewayBefore } from '../testing/gateway-before.ts';
import type { TestService } from '../testing/service.ts';
import { VENDOR_PAIRWISE } from '../testing/vendor/pairwise.ts';
import { evidenceOf } from './evidence.ts';

// The gateway in front of a pairwise cover of plausible vendors (testing/vendor/pairwise.ts):
// whatever a vendor does with pagesize, index, Next and Total, whatever charset, date form,
// language, failure shape, session cookie or compression it uses, and whether it repeats its
// key, the gateway's numbers are exact or refused with a reason, the vendor's words read as
// written, dates come in one form and its key never leaves the gateway.

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

interface Json {
  [name: string]: unknown;
}

async function json(gateway: TestService, path: string): Promise<{ status: number; body: Json }> {
  const response = await gateway.keyed(path);
  return { status: response.status, body: (await response.json()) as Json };
}

/** Every file of the gateway's data folder, as text: where a leaked key would rest. */
function dataFolderText(gateway: TestService): string {
  return readdirSync(gateway.dataDir)
    .filter((name) => /\.db(-wal)?$/.test(name))
    .map((name) => readFileSync(join(gateway.dataDir, name)).toString('latin1'))
    .join('\n');
}

const describeName = (v: (typeof VENDOR_PAIRWISE)[number]) =>
  `${v.variant.name}, pagesize ${typeof v.pagesize === 'string' ? v.pagesize : `cap ${v.pagesize.cap}`}, index ${v.index}, next ${v.next}, ${v.order} first, total ${v.total}, ${v.charset}${v.bom ? ' with a BOM' : ''}, ${v.language}, dates ${v.dates}, echo ${v.echoKey}, session ${v.sessionId}, gzip ${v.gzip}, reasons ${v.failureLog}`;

describe.each(VENDOR_PAIRWISE.map((v) => [describeName(v), v] as const))(
  'a gateway in front of a vendor: %s',
  (_name, combination) => {
    it('tells exact numbers or says why not, reads its words and dates, and keeps its key', async () => {
      const { variant, ...behaviour } = combination;
      const { vendor, gateway, poller, close } = await startGatewayBefore({
        vendor: { variant, behaviour },
      });
      open.push(close);

      // More than one answer of 1,000 holds, over two pipelines, some failing.
      vendor.addRequests('pl_1', 700);
      vendor.addRequests('pl_2', 560);
      vendor.addRequests('pl_2', 40, 'broken.csv', 'failed');
      await poller.pollNow();
      const day = (await poller.index.state('v')).today as string;
      expect(day).toMatch(/^\d{8}$/);

      const capabilities = gateway.app.context.services.list()[0]?.capabilities;
      expect(capabilities?.pagesize).toBe(
        combination.pagesize === 'ignored' ? 'ignored' : 'honoured',
      );
      expect(capabilities?.setsSessionId).toBe(combination.sessionId);
      expect(capabilities?.charset).toBe(combination.charset);

      const stats = await json(gateway, `/pipelineapi/requeststats/json?date=${day}`);
      const failedList = await json(
        gateway,
        `/pipelineapi/requestlist/json?date=${day}&status=${variant.status.failed}&pagesize=100`,
      );
      if ((await poller.dayState(day)) === 'complete') {
        // Exact: the whole day, and its failures in the vendor's own word.
        const root = stats.body.RequestStats as { Total: number };
        expect(stats.status).toBe(200);
        expect(root.Total).toBe(1300);
        const info = (failedList.body.RequestList as { Info: { Total: number } }).Info;
        expect(info.Total).toBe(40);
      } else {
        // Not listed whole: no count is invented, and the refusal says why.
        expect(stats.status).toBe(404);
        expect(JSON.stringify(stats.body)).toContain('missed some');
        // Only a vendor that cuts answers short and cannot be paged is read in part.
        expect(typeof combination.pagesize).toBe('object');
        expect(combination.index).toBe(false);
      }
      // A vendor that can be paged, or answers whole, is always read whole.
      if (combination.pagesize !== 'ignored' && typeof combination.pagesize === 'object')
        expect((await poller.dayState(day)) === 'complete').toBe(combination.index !== false);
      else expect(await poller.dayState(day)).toBe('complete');

      // Dates in one form, whatever form the vendor wrote.
      const page = await json(gateway, `/pipelineapi/requestlist/json?date=${day}&pagesize=5`);
      const requests = (page.body.RequestList as { Request: { BeginDate: string }[] }).Request;
      for (const r of requests)
        expect(r.BeginDate).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

      // A failure's message as the vendor wrote it, in its language and charset, from its
      // status table, read past 1,000 rows: every row, or the first ones saying there are more.
      const failed = vendor.requests().find((r) => r.status === variant.status.failed);
      const table = await json(
        gateway,
        `/pipelineapi/statusdb/json?tablename=STATUS${day}&pagesize=2000`,
      );
      const result = table.body.Result as {
        Info: { Total?: number; Bound?: number; Count: number };
        Record: { Item: (string | null)[] }[];
      };
      if (result.Info.Total !== undefined) {
        expect(result.Info.Total).toBe(1300);
        expect(result.Info.Bound).toBeUndefined();
      } else expect(result.Info.Bound).toBe(result.Info.Count);
      const ids = result.Record.map((r) => r.Item[0]);
      expect(new Set(ids).size).toBe(ids.length);
      const row = result.Record.find((r) => r.Item[0] === failed?.requestId);
      expect(row?.Item[6]).toBe(failed?.errorMsg);
      expect(failed?.errorMsg).toMatch(combination.language === 'ja' ? /読めません/ : /parsed/);
      // The same words as the gateway keeps them from the request's own logs, wherever the
      // vendor wrote them there; none where it wrote them in its status table alone.
      const detail = await poller.upstream.call('requestdetail', {
        requestid: failed?.requestId as string,
        requestlog: 'true',
        applog: 'true',
      });
      expect(evidenceOf(detail, (status) => status === variant.status.failed).message).toBe(
        combination.failureLog === 'none' ? '' : failed?.errorMsg,
      );
      // NULL stays apart from an empty text.
      const done = vendor.requests().find((r) => r.status === variant.status.done);
      expect(result.Record.find((r) => r.Item[0] === done?.requestId)?.Item[6]).toBeNull();

      // A refusal, in the vendor's words; a key it repeats is cut out everywhere.
      const finished = vendor.requests().find((r) => r.status === variant.status.done);
      const retry = await gateway.keyed(`/pipelineapi/requestretry/json`, {
        method: 'PUT',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `requestid=${finished?.requestId}`,
      });
      expect(retry.status).toBe(409);
      const refusal = await retry.text();
      expect(refusal).toContain(finished?.requestId);
      expect(refusal).not.toContain(vendor.apiKey);
      vendor.setFault('error', { apis: ['version'] });
      await gateway.app.context.services.checkAll();
      const down = gateway.app.context.services.list()[0];
      expect(down?.reachable).toBe(false);
      expect(down?.message).toContain('Vendor');
      expect(down?.message).not.toContain(vendor.apiKey);
      expect(await (await gateway.fetch('/readyz')).text()).not.toContain(vendor.apiKey);
      expect(dataFolderText(gateway)).not.toContain(vendor.apiKey);
    });
  },
);
