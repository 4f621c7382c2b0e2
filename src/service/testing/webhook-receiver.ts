import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One message a receiver got: the path it was posted to and its JSON body. */
export interface Received {
  readonly path: string;
  readonly body: Record<string, string>;
}

export interface WebhookReceiver {
  readonly url: string;
  readonly received: Received[];
  close(): Promise<void>;
}

/**
 * A webhook receiver on a loopback port for notification tests. `answer` picks the HTTP
 * status for each message by its path, or `'never'` for one that never answers; 200 by
 * default. Every message that got an answer is in `received`, in order.
 */
export async function startWebhookReceiver(
  answer: (path: string) => number | 'never' = () => 200,
): Promise<WebhookReceiver> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const path = request.url ?? '';
      const status = answer(path);
      if (status === 'never') return;
      received.push({ path, body: JSON.parse(Buffer.concat(chunks).toString()) });
      response.writeHead(status);
      response.end(status < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
