import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Cancelled, StageFailure } from './failures.ts';
import { StageWorkers } from './stage-pool.ts';
import { stageEvents, type StageEvent, type StageJob } from './stage-source.ts';
import {
  decodeRows,
  encodeBatch,
  encodeRows,
  transferables,
  type EncodedEvent,
} from './stage-wire.ts';
import { toObjects, type Row, type Value } from './values.ts';

const folder = mkdtempSync(join(tmpdir(), 'stage-pool-'));
const threads = new StageWorkers();
afterAll(async () => {
  await threads.close();
  rmSync(folder, { recursive: true, force: true });
});

function csvJob(name: string, text: string, overrides: Partial<StageJob> = {}): StageJob {
  const path = join(folder, name);
  writeFileSync(path, text);
  return {
    path,
    filename: name,
    format: 'csv',
    delimiter: ',',
    batchSize: 3,
    limits: {},
    filter: { actions: [{ keep: { field: 'n', op: '>=', value: 2 } }], args: {} },
    ...overrides,
  };
}

/** The events with their rows decoded, as the Joint's thread reads them. */
async function collect(events: AsyncIterable<StageEvent | EncodedEvent>): Promise<StageEvent[]> {
  const out: StageEvent[] = [];
  for await (const event of events) {
    if (event.kind !== 'rows') out.push(event);
    else {
      const { rows } = event;
      // A Batch from stageEvents itself, or rows encoded by the worker.
      const objects = 'cells' in rows || 'objects' in rows ? toObjects(rows) : decodeRows(rows);
      out.push({ ...event, rows: { objects } });
    }
  }
  return out;
}

/** The events without the times, which differ from run to run. */
function shape(events: readonly StageEvent[]): unknown[] {
  return events.map((e) =>
    e.kind === 'rows' ? { kind: e.kind, rows: e.rows } : { ...e, sensorMs: 0, filterMs: 0 },
  );
}

const numbers = (n: number): string =>
  `n,name\n${Array.from({ length: n }, (_, i) => `${i},row ${i}`).join('\n')}\n`;

describe('reading and filtering on a worker thread', () => {
  it('yields the same events as on the main thread, and copies the input to its snapshot', async () => {
    const snapshot = join(folder, 'snap');
    const job = csvJob('ten.csv', numbers(10), { snapshot });
    const inThread = await collect(stageEvents({ ...job, snapshot: undefined }));
    const onWorker = await collect(threads.run(job, new AbortController().signal));
    expect(shape(onWorker)).toEqual(shape(inThread));
    expect(onWorker.at(-1)).toMatchObject({ kind: 'filterEnd', read: 10, kept: 8 });
    expect(readFileSync(snapshot, 'utf8')).toBe(numbers(10));
    expect(existsSync(`${snapshot}.partial`)).toBe(false);
    // The thread is kept for the next job.
    expect(shape(await collect(threads.run(job, new AbortController().signal)))).toEqual(
      shape(inThread),
    );
  });

  it('reports a Sensor failure and a Filter failure as the stage that failed', async () => {
    const bad = csvJob('bad.csv', 'n,name\n1,a\n2\n');
    await expect(collect(threads.run(bad, new AbortController().signal))).rejects.toSatisfy(
      (error) =>
        error instanceof StageFailure && error.stage === 'Sensor' && /bad\.csv/.test(error.message),
    );
    const failing = csvJob('derive.csv', numbers(3), {
      filter: { actions: [{ derive: { x: 'n +' } }], args: {} },
    });
    await expect(collect(threads.run(failing, new AbortController().signal))).rejects.toSatisfy(
      (error) => error instanceof StageFailure && error.stage === 'Filter',
    );
  });

  it('stops at a cancel with the reason of the signal, and a later job runs on a new thread', async () => {
    const job = csvJob('big.csv', numbers(200_000), { batchSize: 100 });
    const stop = new AbortController();
    let batches = 0;
    await expect(
      (async () => {
        for await (const event of threads.run(job, stop.signal)) {
          if (event.kind === 'rows' && ++batches === 3) stop.abort(new Cancelled('cancel'));
        }
      })(),
    ).rejects.toBeInstanceOf(Cancelled);
    const small = csvJob('small.csv', numbers(4));
    expect((await collect(threads.run(small, new AbortController().signal))).at(-1)).toMatchObject({
      kind: 'filterEnd',
      kept: 2,
    });
  });
});

describe('a warmed pool', () => {
  it('runs its first job on the thread started ahead', async () => {
    const warmed = new StageWorkers();
    try {
      warmed.warm();
      warmed.warm();
      const job = csvJob('warm.csv', numbers(5));
      expect((await collect(warmed.run(job, new AbortController().signal))).at(-1)).toMatchObject({
        kind: 'filterEnd',
        read: 5,
        kept: 3,
      });
    } finally {
      await warmed.close();
    }
  });
});

describe('rows between threads', () => {
  it('keep their fields, their order and an own __proto__ field, whatever their shapes', () => {
    const proto: Row = {};
    Object.defineProperty(proto, '__proto__', {
      value: 'x',
      enumerable: true,
      writable: true,
      configurable: true,
    });
    const shapes: Row[][] = [
      [
        { a: 1, b: 'x' },
        { a: null, b: true },
      ],
      [{ a: 1 }, { b: 2, a: 3 }, {}],
      [proto, proto],
      [],
    ];
    for (const rows of shapes) {
      const back = decodeRows(structuredClone(encodeRows(rows)));
      expect(back).toEqual(rows);
      expect(back.map((r) => Object.keys(r))).toEqual(rows.map((r) => Object.keys(r)));
    }
  });
  it('carry rows as cells by column, to the same objects, a __proto__ or numeric name included', () => {
    const names = ['id', '__proto__', '7', 'text'];
    const cells: Value[][] = [
      ['1', 'p', 'seven', 'é'],
      [2, null, true, '😀'],
    ];
    const encoded = encodeBatch({ names, cells });
    expect('keys' in encoded && encoded.keys).toEqual(names);
    const back = decodeRows(structuredClone(encoded));
    expect(back).toEqual(toObjects({ names, cells }));
    expect(Object.getPrototypeOf(back[0])).toBe(Object.prototype);
    expect(back[1]?.['__proto__']).toBeNull();
    expect(decodeRows(encodeBatch({ names, cells: [] }))).toEqual([]);
  });
  it('keep every text as it was, a leading U+FEFF and characters beyond the BMP included, with all their buffers transferred', () => {
    const texts = ['\uFEFFfirst', '', 'é', '日本語の行', '😀 and 😀', 'a,b\n"c"', '\uFEFF'];
    const rows: Row[] = texts.map((text, i) => ({ id: i, text, next: texts[i + 1] ?? null }));
    const encoded = encodeRows(rows);
    const buffers = transferables(encoded);
    expect(buffers).toHaveLength(4);
    const moved = structuredClone(encoded, { transfer: buffers });
    expect(buffers.every((buffer) => buffer.byteLength === 0)).toBe(true);
    expect(decodeRows(moved)).toEqual(rows);
  });
});
