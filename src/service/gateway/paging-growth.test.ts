import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readAll } from './paging.ts';
import { Upstream } from './upstream.ts';

// A day's list that grows while the gateway reads it, from an upstream that ignores index
// and states neither Next nor Total, newest first: the row asked for past a short answer is
// a new one. Without asking again, the gateway took that for a cap it keeps quiet about and
// read every later table of that service only as far as that count (seen in e2e: "First 7
// rows read" of a table of 85).

const KEY = 'growth-key-0123456789abcdefghijklmnopqrstu';

/** Rows newest first; `grow` adds rows at the head. */
function growingUpstream(rows: string[]) {
  let grow: (() => void) | undefined;
  const asked: string[] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://upstream');
    asked.push(url.search);
    const size = Number(url.searchParams.get('pagesize') ?? 100);
    const page = rows.slice(0, size);
    response.writeHead(200, { 'content-type': 'text/xml; charset=utf-8' });
    response.end(
      `<?xml version="1.0" encoding="UTF-8"?><Result><Header/>${page.map((r) => `<Record><Item>${r}</Item></Record>`).join('')}<Status>OK</Status></Result>`,
    );
    // The first answer is out; the list grows before the next ask.
    grow?.();
    grow = undefined;
  });
  return {
    server,
    asked,
    growAfterNextAnswer(more: string[]) {
      grow = () => rows.unshift(...more);
    },
  };
}

const shape = {
  root: 'Result',
  record: 'Record',
  map: (record: Readonly<Record<string, unknown>>) => JSON.stringify(record),
  key: (item: string) => item,
};

describe('readAll over a list that grows while it is read', () => {
  let server: Server | undefined;
  afterEach(
    () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
  );

  it('reads it again instead of learning a cap, and reads the whole list', async () => {
    const upstream = growingUpstream(Array.from({ length: 7 }, (_, i) => `old-${i}`));
    server = upstream.server;
    await new Promise<void>((resolve) => upstream.server.listen(0, '127.0.0.1', resolve));
    const { port } = upstream.server.address() as AddressInfo;
    const gatewaySide = new Upstream({
      id: 'grows',
      name: 'Grows',
      url: `http://127.0.0.1:${port}`,
      apiKey: KEY,
    });
    upstream.growAfterNextAnswer(Array.from({ length: 60 }, (_, i) => `new-${i}`));
    const read = await readAll(
      gatewaySide,
      'statusdb',
      { tablename: 'STATUS20261128' },
      shape,
      20_000,
    );
    expect(gatewaySide.paging.cap).toBeNull();
    expect(read.whole).toBe(true);
    expect(read.items).toHaveLength(67);
    // Later reads are not cut at the first count either.
    const again = await readAll(
      gatewaySide,
      'statusdb',
      { tablename: 'STATUS20261128' },
      shape,
      20_000,
    );
    expect(again.items).toHaveLength(67);
  });
});
