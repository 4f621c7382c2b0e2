import assert from 'node:assert/strict';
import { startGatewayBefore } from '../gateway-before.ts';
import type { TestService } from '../service.ts';
import { describeVendor, generatedVendor, type GeneratedVendor } from './generated.ts';

// What must hold in front of any vendor (issue 37, item 6), checked end to end through the
// gateway's Part C: every count equals the vendor's, or the gateway says it cannot tell;
// every request of the day is read exactly once; every row of a table is read exactly once
// or the answer says where it stopped; a retry the vendor would accept reaches it exactly
// once. A failure names its seed and the one command that starts the same vendor again.

/** The command that checks one seed again. */
export const reproduce = (seed: number): string => `npm run fuzz -- vendors --seed ${seed}`;

interface Json {
  readonly [name: string]: unknown;
}

async function json(gateway: TestService, path: string, init?: RequestInit) {
  const response = await gateway.keyed(path, init);
  const text = await response.text();
  let body: Json = {};
  try {
    body = JSON.parse(text) as Json;
  } catch {
    // Not JSON: the status and text say what it was.
  }
  return { status: response.status, body, text };
}

const count = <T>(items: readonly T[], key: (item: T) => string) => {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
};

/**
 * The most rows one answer of a list holds (the double's honoured pagesize stops at 1,000;
 * a cap cuts the lists it names).
 */
function answerCap(v: GeneratedVendor, list: List): number {
  const { pagesize, capped = 'every list' } = v.behaviour;
  if (pagesize === 'ignored') return Infinity;
  if (typeof pagesize === 'object' && (capped === 'every list' || capped === list))
    return pagesize.cap;
  return 1000;
}

type List = 'requests' | 'tables';

/** Whether a list of `rows` cannot be read whole: its answers stop short and index is ignored. */
const unpageable = (v: GeneratedVendor, list: List, rows: number): boolean =>
  answerCap(v, list) < rows && v.behaviour.index === false;

/**
 * Whether nothing the vendor says can tell a list of `rows` was cut short: it cannot be paged,
 * states no Total and no truthful Next. A short answer is then a whole list or a cap it keeps
 * quiet about, and which one no answer tells (issue 37, item 2: facts per list). The gateway
 * takes such an answer for the whole list unless that list showed a cap; here it is only
 * held to reading no row twice and none that is not there.
 */
const silentlyCut = (v: GeneratedVendor, list: List, rows: number): boolean =>
  unpageable(v, list, rows) && v.behaviour.total !== true && v.behaviour.next !== 'stated';

/** Checks the invariants in front of the vendor of `seed`; throws naming what broke. */
export async function checkGeneratedVendor(seed: number): Promise<void> {
  const v = generatedVendor(seed);
  const [sales, stock] = v.ids.pipelines;
  const { vendor, gateway, poller, close } = await startGatewayBefore({
    vendor: { variant: v.variant, ids: v.ids, behaviour: v.behaviour },
    // Its words, told as a user tells them (--upstream-statuses or the services file):
    // words are not yet understood from what the requests show (issue 37, item 3).
    entry: {
      statuses: {
        waiting: [v.variant.status.waiting],
        running: [v.variant.status.running],
        failed: [v.variant.status.failed],
        final: [v.variant.status.done, v.variant.status.cancelled],
      },
    },
  });
  const step = { name: 'start' };
  try {
    vendor.addRequests(sales, v.requests.done, 'daily.csv', 'done');
    vendor.addRequests(stock, v.requests.failed, 'broken.csv', 'failed');
    vendor.addRequests(sales, v.requests.waiting, 'later.csv', 'waiting');
    vendor.addTableRows('SALES', v.salesRows);
    const truth = vendor.requests();
    const ids = truth.map((r) => r.requestId);
    assert.equal(
      new Set(ids).size,
      ids.length,
      'the generated vendor gives each request its own id',
    );

    step.name = 'a round of the poller';
    await poller.pollNow();
    const day = (await poller.index.state('v')).today as string;
    assert.match(day, /^\d{8}$/, 'the gateway knows the vendor’s day');
    const whole = (await poller.dayState(day)) === 'complete';
    if (!whole)
      assert.ok(
        unpageable(v, 'requests', truth.length),
        `the day was not read whole (${await poller.dayState(day)}) though the vendor can be paged or answers whole`,
      );

    step.name = 'requeststats';
    const stats = await json(gateway, `/pipelineapi/requeststats/json?date=${day}`);
    if (whole && !silentlyCut(v, 'requests', truth.length)) {
      assert.equal(stats.status, 200, stats.text);
      const root = stats.body.RequestStats as {
        Total: number;
        Pipeline: { Id: string; Count: { Status: string; Value: number }[] }[];
      };
      assert.equal(root.Total, truth.length, 'the day’s total');
      const told = new Map<string, number>();
      for (const p of root.Pipeline)
        for (const c of p.Count) if (c.Value > 0) told.set(`${p.Id} ${c.Status}`, c.Value);
      assert.deepEqual(
        told,
        count(truth, (r) => `${r.pipelineId} ${r.status}`),
        'counts per pipeline and status word',
      );
    } else if (!whole) assert.equal(stats.status, 404, `no count is invented: ${stats.text}`);

    step.name = 'the day’s requests, page by page';
    const read: string[] = [];
    for (let index = 0, pages = 0; index >= 0; pages++) {
      assert.ok(pages <= truth.length / 100 + 2, 'paging ends');
      const page = await json(
        gateway,
        `/pipelineapi/requestlist/json?date=${day}&pagesize=100&index=${index}`,
      );
      assert.equal(page.status, 200, page.text);
      const list = page.body.RequestList as {
        Request?: { RequestId: string }[];
        Info: { Next: number; Total?: number };
      };
      read.push(...(list.Request ?? []).map((r) => r.RequestId));
      index = list.Info.Next;
    }
    assert.equal(new Set(read).size, read.length, 'no request is listed twice');
    if (whole && !silentlyCut(v, 'requests', truth.length))
      assert.deepEqual(new Set(read), new Set(ids), 'every request of the day is listed');
    else for (const id of read) assert.ok(ids.includes(id), `listed ${id} is the vendor’s`);

    step.name = 'a table, page by page';
    const tableRows = vendor.tableRows('SALES');
    const rows: string[] = [];
    let bound: number | undefined;
    for (let index = 0, pages = 0; index >= 0; pages++) {
      assert.ok(pages <= 20, 'paging ends');
      const page = await json(
        gateway,
        `/pipelineapi/actiondb/json?tablename=SALES&pagesize=100&index=${index}`,
      );
      assert.equal(page.status, 200, page.text);
      const result = page.body.Result as {
        Info: { Next?: number; Total?: number; Bound?: number };
        Record?: { Item: (string | null)[] }[];
      };
      rows.push(...(result.Record ?? []).map((r) => JSON.stringify(r.Item)));
      bound = result.Info.Bound;
      index = result.Info.Next ?? -1;
      if (result.Info.Total !== undefined && !silentlyCut(v, 'tables', tableRows))
        assert.equal(result.Info.Total, tableRows, 'a table’s Total');
    }
    assert.equal(new Set(rows).size, rows.length, 'no row is read twice');
    assert.ok(rows.length <= tableRows, 'no row that is not there');
    // One of exactly its cap's length, where nothing tells, may be taken for a cut one.
    const atCap = answerCap(v, 'tables') === tableRows && silentlyCut(v, 'tables', tableRows + 1);
    if (!unpageable(v, 'tables', tableRows) && !atCap)
      assert.equal(bound, undefined, 'a table that can be read whole is read whole');
    if (bound === undefined && !silentlyCut(v, 'tables', tableRows))
      assert.equal(rows.length, tableRows, 'every row, or a bound saying where');

    step.name = 'a retry';
    const failed = truth.find((r) => r.status === v.variant.status.failed);
    assert.ok(failed, 'the vendor has a failed request');
    const before = vendor.calls().requestretry ?? 0;
    const retry = await json(gateway, '/pipelineapi/requestretry/json', {
      method: 'PUT',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ requestid: failed.requestId }).toString(),
    });
    assert.equal(
      retry.status,
      200,
      `the vendor accepts a retry of a failed request: ${retry.text}`,
    );
    assert.equal(
      (vendor.calls().requestretry ?? 0) - before,
      1,
      'the retry reached the vendor once',
    );
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(
      `seed ${seed}, at ${step.name}: ${why}\n  vendor: ${describeVendor(v)}\n  again: ${reproduce(seed)}`,
      { cause: error },
    );
  } finally {
    await close();
  }
}
