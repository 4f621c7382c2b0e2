import { afterEach, describe, expect, it } from 'vitest';
import { startGatewayBefore, type GatewayBefore } from '../testing/gateway-before.ts';
import type { VendorBehaviour, VendorFault } from '../testing/vendor/vendor-service.ts';

// An upstream's answers as bad input (issue 23): malformed, truncated, endless, huge or
// refused for load. Each ends in 502/504 naming the service and what was wrong, within the
// timeout and with memory bounded, and the index keeps what it knew, saying how old it is.

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function setup(
  behaviour: Partial<VendorBehaviour> = {},
  limits: {
    upstreamTimeoutMs?: number;
    upstreamMaxBytes?: number;
    upstreamConcurrency?: number;
  } = {},
): Promise<GatewayBefore> {
  const started = await startGatewayBefore({
    vendor: { behaviour },
    entry: { name: 'Kanto' },
    gateway: { limits },
  });
  open.push(started.close);
  return started;
}

const MIB = 1024 * 1024;

describe('a bad answer of an upstream', () => {
  it.each([
    ['malformed', 502, /Service Kanto answered XML that cannot be read/],
    ['truncated', 504, /Service Kanto stopped answering midway/],
    ['endless', 504, /Service Kanto did not answer within 1 s/],
    [
      'huge',
      502,
      /Service Kanto answered (more than )?\d+\.\d MiB, beyond the gateway's bound of 8 MiB/,
    ],
  ] as const)(
    '%s: %i naming the service and what was wrong, and the index keeps what it knew',
    async (fault: VendorFault, status, message) => {
      const { vendor, gateway, poller } = await setup(
        {},
        { upstreamTimeoutMs: 1000, upstreamMaxBytes: 8 * MIB },
      );
      vendor.addRequests('pl_1', 30);
      await poller.pollNow();
      const before = poller.state().indexedAt;
      expect(before).not.toBeNull();

      vendor.setFault(fault, { apis: ['requestlist', 'statusdb'], bytes: 64 * MIB });
      const rssBefore = process.memoryUsage().rss;
      const started = performance.now();
      const answer = await gateway.keyed('/pipelineapi/statusdb/json?tablename=STATUS20260101');
      expect(performance.now() - started).toBeLessThan(5000);
      expect(answer.status).toBe(status);
      expect(await answer.text()).toMatch(message);
      // The 64 MiB answer was never held: the process grew by far less than it.
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(48 * MIB);

      await poller.pollNow();
      const state = poller.state();
      expect(state.indexError).toMatch(message);
      // The index still answers what it knew, as of its last good round.
      expect(state.indexedAt).toBe(before);
      const list = await gateway.keyed('/pipelineapi/requestlist/json?pagesize=5');
      expect(list.status).toBe(200);
      const body = (await list.json()) as { RequestList: { Info: { Total: number } } };
      expect(body.RequestList.Info.Total).toBe(30);
    },
  );

  it('one value past the bound: 502 naming the service, the element and the bound, read no further', async () => {
    const { vendor, gateway, poller } = await setup();
    vendor.addRequests('pl_1', 3);
    await poller.pollNow();
    // 64 MiB of answer, all of it one text value: within --upstream-max-mb, past one value's bound.
    vendor.setFault('hugeValue', { apis: ['requestdetail'], bytes: 64 * MIB });
    const requestId = vendor.requests()[0]?.requestId ?? '';
    const detail = `/pipelineapi/requestdetail/json?requestid=${encodeURIComponent(requestId)}`;
    const rssBefore = process.memoryUsage().rss;
    const answer = await gateway.keyed(detail);
    expect(answer.status).toBe(502);
    const body = (await answer.json()) as { ExecuteResponse: { Code: number; Message: string } };
    expect(body.ExecuteResponse).toMatchObject({
      Code: 5002,
      Message:
        "Service Kanto answered a value of <Message> of at least 1048577 characters, beyond the gateway's bound of 1048576 characters for one value (--upstream-max-value-mb); it was read no further.",
    });
    // Stopped at the bound: the process never held the 64 MiB value.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(48 * MIB);
    // The vendor's fault alone: the next answer is read as ever.
    vendor.setFault(undefined);
    expect((await gateway.keyed(detail)).status).toBe(200);
  });

  it('refused for load with Retry-After: asked again, never more calls at once than the bound', async () => {
    const { vendor, gateway } = await setup(
      { concurrency: 2, latencyMs: 100 },
      { upstreamConcurrency: 4, upstreamTimeoutMs: 10_000 },
    );
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => gateway.keyed('/pipelineapi/actiondb/json')),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(vendor.maxInFlight()).toBeLessThanOrEqual(4);
    const facts = gateway.app.context.services.list()[0]?.capabilities;
    // It showed it takes two at once: the gateway keeps to that.
    expect(facts?.concurrencyLimit).toBeLessThanOrEqual(3);
    expect(facts?.concurrency).toBe(facts?.concurrencyLimit);
  });

  it("keeps an upstream's SESSIONID on the server, and cuts it out of what it says", async () => {
    const { vendor, gateway } = await setup({ sessionId: true, echoKey: true });
    const version = await gateway.keyed('/pipelineapi/version/json');
    expect(version.status).toBe(200);
    expect(gateway.app.context.services.list()[0]?.capabilities?.setsSessionId).toBe(true);
    const cookies = version.headers.getSetCookie().join('\n');
    expect(cookies).not.toMatch(/vendor-session/);
    vendor.setFault('error', { apis: ['statusdb'] });
    const failed = await gateway.keyed('/pipelineapi/statusdb/json');
    expect(failed.status).toBe(502);
    const text = await failed.text();
    expect(text).not.toContain(vendor.apiKey);
    expect(text).not.toMatch(/vendor-session-[0-9a-f]{8}/);
  });
});
