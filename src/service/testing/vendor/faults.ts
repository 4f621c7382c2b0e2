import type { ServerResponse } from 'node:http';
import { Readable, pipeline } from 'node:stream';

// Answers that break HTTP or XML itself, whatever the call asked: what a client meets when
// the service or the network between fails midway. None builds its whole body in memory.

export type VendorFault = 'truncated' | 'endless' | 'malformed' | 'huge' | 'hugeValue' | 'error';

/** 200 MiB: far beyond any page a client should agree to hold. */
export const HUGE_DEFAULT_BYTES = 200 * 1024 * 1024;

const PROLOG = '<?xml version="1.0" encoding="UTF-8"?>';
const REQUEST =
  '<Request><RequestId>pl_1-20260101_00-000001</RequestId><PipelineId>pl_1</PipelineId>' +
  '<Name>Sales</Name><Status>Finish</Status><Stage>Complete</Stage>' +
  '<BeginDate>2026-01-01 00:00:00</BeginDate></Request>';

/** Tells the whole body's length, then hangs up halfway through it. */
export function writeTruncated(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: Buffer,
): void {
  res.writeHead(status, { ...headers, 'content-length': String(body.length) });
  res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.destroy());
}

/** A 200 that never ends: a Request now and then, until the client goes away. */
export function writeEndless(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/xml' });
  res.write(`${PROLOG}<RequestList>`);
  const timer = setInterval(() => res.write(REQUEST), 50);
  timer.unref();
  res.on('close', () => clearInterval(timer));
}

/** A 200 that claims XML and is not: elements opened and never closed. */
export function writeMalformed(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/xml' });
  res.end(`${PROLOG}<RequestList><Request><RequestId>pl_1-20260101_00-000001</Request>`);
}

/**
 * A well-formed answer of exactly `bytes` bytes (or its smallest form, when `bytes` is
 * less): for requestlist a RequestList of one Request repeated, for any other api its root
 * element padded with comments. Streamed from one reused block, with backpressure.
 */
export function writeHuge(res: ServerResponse, api: string, root: string, bytes: number): void {
  const list = api === 'requestlist';
  const unit = list ? REQUEST : `<!--${'padding '.repeat(12)}-->`;
  const head = `${PROLOG}<${root}>`;
  const tail = (count: number) =>
    list
      ? `<Info><Index>0</Index><Prev>-1</Prev><Next>-1</Next><Count>${count}</Count></Info></${root}>`
      : `</${root}>`;
  // The tail's length depends on the count it tells: settle both together.
  let units = 0;
  for (let i = 0; i < 3; i++)
    units = Math.max(0, Math.floor((bytes - head.length - tail(units).length) / unit.length));
  const closing = tail(units);
  const filler = Math.max(0, bytes - head.length - closing.length - units * unit.length);
  const total = head.length + units * unit.length + filler + closing.length;
  const perBlock = Math.max(1, Math.floor(65_536 / unit.length));
  const block = Buffer.from(unit.repeat(perBlock));
  function* pieces(): Generator<Buffer> {
    yield Buffer.from(head);
    let left = units;
    for (; left >= perBlock; left -= perBlock) yield block;
    if (left > 0) yield block.subarray(0, left * unit.length);
    // Whitespace between elements keeps the document well-formed at any length.
    for (let rest = filler; rest > 0; rest -= 65_536)
      yield Buffer.alloc(Math.min(rest, 65_536), 32);
    yield Buffer.from(closing);
  }
  res.writeHead(200, { 'content-type': 'text/xml', 'content-length': String(total) });
  pipeline(Readable.from(pieces(), { objectMode: false }), res, () => undefined);
}

/**
 * A well-formed answer of about `bytes` bytes that is one text value: its root element holding
 * a `Message` of one letter repeated (a vendor that writes a whole file into one field).
 * Streamed from one reused block, with backpressure.
 */
export function writeHugeValue(res: ServerResponse, root: string, bytes: number): void {
  const head = `${PROLOG}<${root}><Message>`;
  const tail = `</Message></${root}>`;
  const text = Math.max(0, bytes - head.length - tail.length);
  const block = Buffer.alloc(65_536, 'x');
  function* pieces(): Generator<Buffer> {
    yield Buffer.from(head);
    for (let rest = text; rest > 0; rest -= block.length)
      yield rest >= block.length ? block : block.subarray(0, rest);
    yield Buffer.from(tail);
  }
  res.writeHead(200, {
    'content-type': 'text/xml',
    'content-length': String(head.length + text + tail.length),
  });
  pipeline(Readable.from(pieces(), { objectMode: false }), res, () => undefined);
}
