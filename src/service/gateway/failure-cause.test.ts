import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode, upstreamSentence, type UpstreamCause } from '../../kit/index.ts';
import { addUser } from '../auth/users.ts';
import { startService, type TestService } from '../testing/service.ts';
import { startVendorService } from '../testing/vendor/vendor-service.ts';
import type { IndexPoller } from './poller.ts';

// Why a service behind the gateway is unreachable, in data (issue 25): beside the English
// `message` of GET /mcapi/services and /mcapi/fleet, its Part C `code` and, when the sentence
// is the gateway's own, its `cause` (kit/upstream-failure.ts). The dashboard words the cause
// in its user's language and shows a message without one as the service's own words.

const PASSWORD = 'cause-password-1';

interface Listed {
  readonly id: string;
  readonly reachable: boolean;
  readonly message: string | null;
  readonly code: number | null;
  readonly cause: UpstreamCause | null;
  readonly indexError?: string | null;
  readonly indexErrorCode?: number | null;
  readonly indexErrorCause?: UpstreamCause | null;
}

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function gatewayFor(
  services: { id: string; name: string; url: string; apiKey: string }[],
): Promise<{ gateway: TestService; read: (path: string) => Promise<Listed[]> }> {
  const gateway = await startService({
    services,
    demo: false,
    apiKey: undefined,
    pollScheduled: false,
    limits: { upstreamTimeoutMs: 1000 },
  });
  open.push(() => gateway.close());
  await addUser(gateway.app.context.shared, 'olivia', PASSWORD, 'operator', 'now');
  const login = await gateway.fetch('/mcapi/auth/login', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' },
    body: new URLSearchParams({ userName: 'olivia', password: PASSWORD }).toString(),
  });
  const session = ((await login.json()) as { result: { data: { sessionId: string } } }).result.data
    .sessionId;
  // Answers held to /openapi.json (testing/service.ts): the document describes the fields.
  const read = async (path: string) => {
    const answer = await gateway.fetch(path, { headers: { 'X-As-SessionId': session } });
    expect(answer.status).toBe(200);
    return ((await answer.json()) as { result: { data: { services: Listed[] } } }).result.data
      .services;
  };
  return { gateway, read };
}

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('why an upstream is unreachable, in data', () => {
  it('a stopped vendor: the services list and the fleet give its code and cause beside the sentence', async () => {
    const vendor = await startVendorService();
    let stopped = false;
    open.push(async () => {
      if (!stopped) await vendor.close();
    });
    vendor.addRequests('pl_1', 3);
    const { gateway, read } = await gatewayFor([
      { id: 'kanto', name: 'Kanto', url: vendor.url, apiKey: vendor.apiKey },
    ]);
    const poller = gateway.app.context.services.route('kanto')?.upstream?.poller as IndexPoller;
    await poller.pollNow();
    const [up] = await read('/mcapi/services');
    expect(up).toMatchObject({ reachable: true, message: null, code: null, cause: null });

    await vendor.close();
    stopped = true;
    // The first call that meets it stopped tells the directory; the index's round fails too.
    await poller.pollNow();
    const [down] = await read('/mcapi/services');
    // ECONNREFUSED, or the code of a kept-alive connection cut as it stopped.
    expect(down?.cause).toEqual({ kind: 'unreachable', error: expect.stringMatching(/^[A-Z_]+$/) });
    const cause = down?.cause as UpstreamCause;
    const said = {
      reachable: false,
      message: upstreamSentence('Kanto', cause),
      code: ErrorCode.UpstreamFailed,
      cause,
      indexError: upstreamSentence('Kanto', cause),
      indexErrorCode: ErrorCode.UpstreamFailed,
      indexErrorCause: cause,
    };
    expect(down).toMatchObject(said);
    expect((await read('/mcapi/fleet'))[0]).toMatchObject(said);
    // The server's own 30 s check says the same, its connection refused now.
    await gateway.app.context.services.checkAll();
    const refused: UpstreamCause = { kind: 'unreachable', error: 'ECONNREFUSED' };
    expect((await read('/mcapi/services'))[0]).toMatchObject({
      reachable: false,
      message: 'Service Kanto cannot be reached (ECONNREFUSED).',
      code: ErrorCode.UpstreamFailed,
      cause: refused,
    });
  });

  it('a timeout, a failure with the service’s words, a refusal in its own words', async () => {
    // Words that imitate the gateway's sentence: data, never taken for ours.
    const mimic = 'Service Tokyo cannot be reached (ECONNREFUSED).';
    const slow = await serve(() => undefined);
    const failing = await serve((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(mimic);
    });
    const refusing = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/xml' });
      res.end(
        `<ExecuteResponse><Status>Error</Status><Code>5002</Code><Message>${mimic}</Message></ExecuteResponse>`,
      );
    });
    const { read } = await gatewayFor([
      { id: 'slow', name: 'Slow', url: slow, apiKey: 'k' },
      { id: 'failing', name: 'Tokyo', url: failing, apiKey: 'k' },
      { id: 'refusing', name: 'Tokyo', url: refusing, apiKey: 'k' },
    ]);
    const [timedOut, failed, refused] = await read('/mcapi/services');
    expect(timedOut).toMatchObject({
      reachable: false,
      message: 'Service Slow did not answer within 1 s.',
      code: ErrorCode.UpstreamTimeout,
      cause: { kind: 'timeout', seconds: 1 },
    });
    expect(failed).toMatchObject({
      reachable: false,
      message: `Service Tokyo failed (HTTP 500): ${mimic}`,
      code: ErrorCode.UpstreamFailed,
      cause: { kind: 'failed', httpStatus: 500, words: mimic },
    });
    // Its own refusal, passed on in its words under its code: no cause of ours.
    expect(refused).toMatchObject({
      reachable: false,
      message: mimic,
      code: ErrorCode.BadParameter,
      cause: null,
    });
  });
});
