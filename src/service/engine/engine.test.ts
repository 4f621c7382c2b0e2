import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestDetail } from '../../kit/index.ts';
import { upsertPipeline } from '../db/system/pipelines.ts';
import { parseDefinitions, toRecord } from '../pipelines/definition.ts';
import { STRICT_CODES_PIPELINE } from '../testing/pipelines.ts';
import { eventually, startService, type TestService } from '../testing/service.ts';

const PIPELINES = `
pipelines:
  - id: pl_1
    name: Ingest
    sensor: { format: csv }
    filter:
      - keep: { field: amount, op: '>=', value: '\${min}' }
      - cast: { id: integer, amount: double }
    args:
      - { name: min, default: '0' }
    joint:
      - table:
          name: ITEMS
          columns:
            - { name: ID, type: BIGINT, key: true, from: id }
            - { name: AMOUNT, type: DOUBLE, from: amount }
            - { name: LABEL, type: VARCHAR, from: label }
      - file: { name: 'items-\${requestid}.csv', format: csv }
${STRICT_CODES_PIPELINE}  - id: pl_3
    name: Held
    runmode: stop
    sensor: { format: jsonl }
    joint:
      - table:
          name: HELD
          columns:
            - { name: N, type: INTEGER, from: n }
  - id: pl_4
    name: Events
    sensor: { format: jsonl }
    joint:
      - table:
          name: EVENTS
          columns:
            - { name: KIND, type: VARCHAR, from: kind }
            - { name: AT, type: TIMESTAMP, from: at }
            - { name: SIZE, type: BIGINT, from: size }
            - { name: RATIO, type: DOUBLE, from: ratio }
            - { name: COUNT, type: INTEGER, from: count }
`;

let service: TestService | undefined;

afterEach(async () => {
  await service?.close();
  service = undefined;
});

async function start(options: { workers?: number; batchSize?: number } = {}): Promise<TestService> {
  const folder = mkdtempSync(join(tmpdir(), 'engine-defs-'));
  writeFileSync(join(folder, 'p.yaml'), PIPELINES);
  service = await startService({ pipelinesFile: join(folder, 'p.yaml'), ...options });
  return service;
}

function items(rows: number): string {
  let text = 'id,amount,label\n';
  for (let i = 1; i <= rows; i++) text += `${i},${i % 100},"item ${i}, ok"\n`;
  return text;
}

function inbox(s: TestService, name: string, text: string): void {
  writeFileSync(join(s.dataDir, 'inbox', name), text);
}

async function until(
  s: TestService,
  requestId: string,
  done: (d: RequestDetail) => boolean,
  what: string,
): Promise<RequestDetail> {
  return eventually(async () => {
    const detail = await s.client.requestDetail(requestId, { requestLog: true, appLog: true });
    return done(detail) ? detail : undefined;
  }, `${requestId} ${what}`);
}

const terminal = (d: RequestDetail) => ['Finish', 'Error', 'Stop'].includes(d.status);

/** The request once nothing can run any more (the engine has settled). */
async function settled(s: TestService, requestId: string): Promise<RequestDetail> {
  await s.app.engine.whenSettled();
  const detail = await s.client.requestDetail(requestId, { requestLog: true, appLog: true });
  expect(terminal(detail), `${requestId} ends`).toBe(true);
  return detail;
}

/** The request once the engine has settled, which must have finished it. */
async function finishedDetail(s: TestService, requestId: string): Promise<RequestDetail> {
  const detail = await settled(s, requestId);
  expect(detail.status, `${requestId} finishes`).toBe('Finish');
  return detail;
}

describe('engine', () => {
  it('runs a request Wait → Start → Process → Finish through Sensor, Filter, Joint, with logs and times', async () => {
    const s = await start();
    inbox(s, 'a.csv', items(10));
    const { requestId } = await s.client.exec('pl_1', 'a.csv', { min: '5' });
    const detail = await settled(s, requestId as string);
    expect(detail).toMatchObject({
      status: 'Finish',
      stage: 'Complete',
      sensorFile: 'a.csv',
      fileSize: expect.stringMatching(/ B$/),
    });
    expect(detail.beginTime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(detail.endTime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    for (const time of [detail.sensorTime, detail.filterTime, detail.jointTime])
      expect(time).toMatch(/^\d{2}:\d{2}$/);
    const log = detail.requestLog ?? [];
    expect(log[0]).toMatchObject({ stage: '', event: 'Start', status: 'Start' });
    expect(log.at(-1)).toMatchObject({ stage: '', event: 'End', status: 'Finish' });
    const stageStarts = log
      .filter((l) => l.event === 'Start' && l.actionOrder === 0 && l.stage !== '')
      .map((l) => l.stage);
    expect(stageStarts).toEqual(['Sensor', 'Filter', 'Joint']);
    expect(
      log
        .filter((l) => l.stage === 'Filter' && l.actionOrder > 0)
        .map((l) => [l.event, l.actionOrder]),
    ).toEqual([
      ['Start', 1],
      ['Start', 2],
      ['End', 1],
      ['End', 2],
    ]);
    expect(log.some((l) => l.status === 'Process')).toBe(true);
    const messages = (detail.appLog ?? []).map((l) => l.message);
    expect(messages).toEqual([
      `Read 10 rows from a.csv (${Buffer.byteLength(items(10))} bytes)`,
      'Filter kept 6 of 10 rows',
      'Wrote 6 rows to table ITEMS',
      `Wrote 6 rows to items-${requestId}.csv`,
    ]);
    const table = await s.client.table('action', 'ITEMS');
    expect(table.rows.map((r) => r[0])).toEqual(['5', '6', '7', '8', '9', '10']);
    expect(table.rows[0]).toEqual(['5', '5', 'item 5, ok']);
    const output = readFileSync(join(s.dataDir, 'outbox', `items-${requestId}.csv`), 'utf8');
    expect(output.split('\n')[0]).toBe('id,amount,label');
    expect(output).toContain('5,5,"item 5, ok"');
    const status = await s.client.table('status', `STATUS${(requestId as string).slice(5, 13)}`);
    expect(status.rows[0]).toEqual([
      requestId,
      'pl_1',
      expect.any(String),
      expect.any(String),
      'Complete',
      'Finish',
      null,
      '0',
    ]);
  });

  it('creates action tables with the declared types and key', async () => {
    const s = await start();
    inbox(
      s,
      'e.jsonl',
      '{"kind":"a","at":"2026-11-21 10:00:00","size":"9007199254740993","ratio":0.5,"count":3}\n{"kind":null}\n',
    );
    const { requestId } = await s.client.exec('pl_4', 'e.jsonl');
    await settled(s, requestId as string);
    const page = await s.client.table('action', 'EVENTS');
    expect(page.columns.map((c) => `${c.name}:${c.type}:${c.key}`)).toEqual([
      'KIND:VARCHAR:false',
      'AT:TIMESTAMP:false',
      'SIZE:BIGINT:false',
      'RATIO:DOUBLE:false',
      'COUNT:INTEGER:false',
    ]);
    // BIGINT keeps every digit beyond 2^53; missing fields are NULL.
    expect(page.rows).toEqual([
      ['a', '2026-11-21 10:00:00', '9007199254740993', '0.5', '3'],
      [null, null, null, null, null],
    ]);
    const items = await s.client.table('action', 'ITEMS').catch((e: Error) => e);
    expect(items).toBeInstanceOf(Error);
  });

  it('fails a missing file in Sensor naming it, and retries it once the file is there', async () => {
    const s = await start();
    const { requestId } = await s.client.exec('pl_1', 'late.csv');
    const failed = await settled(s, requestId as string);
    expect(failed).toMatchObject({ status: 'Error', stage: 'Sensor' });
    const day = (requestId as string).slice(5, 13);
    const statusRow = (await s.client.table('status', `STATUS${day}`)).rows.find(
      (r) => r[0] === requestId,
    );
    expect(statusRow?.slice(4)).toEqual([
      'Sensor',
      'Error',
      'Input file late.csv was not found in the inbox or cannot be read.',
      '1',
    ]);
    inbox(s, 'late.csv', items(3));
    await s.client.retry(requestId as string);
    const done = await finishedDetail(s, requestId as string);
    expect(done.stage).toBe('Complete');
    const after = (await s.client.table('status', `STATUS${day}`)).rows.find(
      (r) => r[0] === requestId,
    );
    expect(after?.slice(4)).toEqual(['Complete', 'Finish', null, '0']);
  });

  it('retries from Filter with the Sensor output from the cache', async () => {
    const s = await start();
    inbox(s, 'codes.csv', 'code\n1\ntwo\n3\n');
    const { requestId } = await s.client.exec('pl_2', 'codes.csv');
    const failed = await settled(s, requestId as string);
    expect(failed).toMatchObject({ status: 'Error', stage: 'Filter' });
    expect(failed.appLog?.at(-1)?.message).toBe('cast: code value "two" is not an integer');
    // The inbox file is gone: a retry that read it again would fail in Sensor.
    rmSync(join(s.dataDir, 'inbox', 'codes.csv'));
    // The operator fixes the definition: the bad code is dropped instead of cast.
    const fixed = parseDefinitions(
      PIPELINES.replace('cast: { code: integer }', "keep: { field: code, op: '!=', value: two }"),
    ).find((p) => p.id === 'pl_2');
    upsertPipeline(
      s.app.context.dbs.system,
      toRecord(fixed as NonNullable<typeof fixed>),
      new Date().toISOString(),
    );
    await s.client.retry(requestId as string);
    const done = await finishedDetail(s, requestId as string);
    expect(done.appLog?.map((l) => l.message)).toContain(
      'Sensor output taken from the action cache',
    );
    expect((await s.client.table('action', 'CODES')).rows).toEqual([['1'], ['3']]);
  });

  it('retries from Joint with the Filter output from the cache; nothing is half-written', async () => {
    const s = await start();
    // A table of the same name with other columns makes the Joint fail.
    s.app.context.dbs.action.exec('CREATE TABLE ITEMS (OTHER VARCHAR)');
    inbox(s, 'j.csv', items(5));
    const { requestId } = await s.client.exec('pl_1', 'j.csv');
    const failed = await settled(s, requestId as string);
    expect(failed).toMatchObject({ status: 'Error', stage: 'Joint' });
    expect(readdirSync(join(s.dataDir, 'outbox'))).toEqual([]);
    rmSync(join(s.dataDir, 'inbox', 'j.csv'));
    expect((await s.client.dropTable('ITEMS')).rowCount).toBe(0);
    await s.client.retry(requestId as string);
    const done = await finishedDetail(s, requestId as string);
    const messages = done.appLog?.map((l) => l.message) ?? [];
    expect(messages).toContain('Sensor output taken from the action cache');
    expect(messages).toContain('Filter output taken from the action cache');
    expect((await s.client.table('action', 'ITEMS')).info.total).toBe(5);
  });

  it('cancels a running request at a batch boundary: Stop, no rows, no output file; then retries it', async () => {
    const s = await start({ batchSize: 200 });
    inbox(s, 'big.csv', items(300_000));
    const { requestId } = await s.client.exec('pl_1', 'big.csv');
    await until(s, requestId as string, (d) => d.status === 'Process', 'runs');
    await s.client.cancel(requestId as string);
    const stopped = await settled(s, requestId as string);
    // The earliest stage that had not finished is where it stopped, and where a retry starts.
    expect(stopped).toMatchObject({ status: 'Stop', stage: 'Sensor' });
    expect(stopped.appLog?.at(-1)).toMatchObject({ type: 'WARN', message: 'Cancelled by request' });
    const tables = (await s.client.tables('action')).tables;
    expect(tables).not.toContain('ITEMS'); // created inside the rolled-back transaction
    expect(readdirSync(join(s.dataDir, 'outbox'))).toEqual([]);
    await expect(s.client.cancel(requestId as string)).rejects.toMatchObject({
      status: 409,
      code: 1301,
    });
    await s.client.retry(requestId as string);
    await finishedDetail(s, requestId as string);
    expect((await s.client.table('action', 'ITEMS')).info.total).toBe(300_000);
  });

  it('holds requests of a suspended pipeline in Wait, cancels from Wait, and drains in order on resume', async () => {
    const s = await start({ workers: 1 });
    inbox(s, 'n.jsonl', '{"n":1}\n');
    const ids: string[] = [];
    for (let i = 0; i < 4; i++)
      ids.push((await s.client.exec('pl_3', 'n.jsonl')).requestId as string);
    await s.app.engine.whenSettled();
    for (const id of ids) expect((await s.client.requestDetail(id)).status).toBe('Wait');
    await s.client.cancel(ids[1] as string);
    expect((await s.client.requestDetail(ids[1] as string)).status).toBe('Stop');
    await s.client.resume('pl_3');
    for (const id of [ids[0], ids[2], ids[3]]) await finishedDetail(s, id as string);
    const ends = await Promise.all(
      [ids[0], ids[2], ids[3]].map(
        async (id) =>
          (await s.client.requestDetail(id as string, { requestLog: true })).requestLog?.at(-1)
            ?.date,
      ),
    );
    expect([...ends].sort()).toEqual(ends);
    expect((await s.client.table('action', 'HELD')).info.total).toBe(3);
  });

  it('keeps the cache of failed requests only, and clears the chosen stages of a pipeline', async () => {
    const s = await start();
    const cached = (requestId: string) => ({
      sensor: existsSync(join(s.dataDir, 'cache', 'pl_1', requestId, 'sensor')),
      parts: (
        s.app.context.dbs.action
          .prepare('SELECT DISTINCT STAGE FROM _CACHE WHERE REQUESTID = ? ORDER BY STAGE')
          .all(requestId) as {
          STAGE: string;
        }[]
      ).map((r) => r.STAGE),
    });
    inbox(s, 'ok.csv', items(4));
    const ok = (await s.client.exec('pl_1', 'ok.csv')).requestId as string;
    await finishedDetail(s, ok);
    expect(cached(ok)).toEqual({ sensor: false, parts: [] }); // a finished request needs no cache

    s.app.context.dbs.action.exec('DROP TABLE ITEMS; CREATE TABLE ITEMS (OTHER VARCHAR)');
    inbox(s, 'c.csv', items(4));
    const failed = (await s.client.exec('pl_1', 'c.csv')).requestId as string;
    await settled(s, failed);
    expect(cached(failed)).toEqual({ sensor: true, parts: ['Filter'] });
    await s.client.clearCache('pl_1', { filter: true });
    expect(cached(failed)).toEqual({ sensor: true, parts: [] });
    await s.client.dropTable('ITEMS');
    rmSync(join(s.dataDir, 'inbox', 'c.csv'));
    await s.client.retry(failed);
    const done = await finishedDetail(s, failed);
    const messages = done.appLog?.map((l) => l.message) ?? [];
    // Filter ran again from the Sensor snapshot; the inbox file was not needed.
    expect(messages).toContain('Sensor output taken from the action cache');
    expect(messages).not.toContain('Filter output taken from the action cache');
    expect(messages.filter((m) => m === 'Filter kept 4 of 4 rows')).toHaveLength(1);

    s.app.context.dbs.action.exec('DROP TABLE ITEMS; CREATE TABLE ITEMS (OTHER VARCHAR)');
    inbox(s, 'd.csv', items(3));
    const again = (await s.client.exec('pl_1', 'd.csv')).requestId as string;
    await settled(s, again);
    await s.client.clearCache('pl_1', { sensor: true });
    expect(cached(again)).toEqual({ sensor: false, parts: ['Filter'] });
    await s.client.dropTable('ITEMS');
    await s.client.retry(again);
    const finished = await finishedDetail(s, again);
    expect(finished.appLog?.map((l) => l.message)).toContain(
      'Filter output taken from the action cache',
    );
  });

  it('records 300 concurrent execs with unique ids, all ending', async () => {
    const s = await start();
    inbox(s, 'n.jsonl', '{"n":1}\n');
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        s.client.exec(i % 2 ? 'pl_1' : 'pl_4', i % 2 ? `missing-${i}.csv` : 'n.jsonl'),
      ),
    );
    const ids = results.map((r) => r.requestId as string);
    expect(new Set(ids).size).toBe(300);
    await s.app.engine.whenSettled();
    const list = await s.client.requestList({ pageSize: 1000 });
    expect(list.info.total).toBe(300);
    expect(list.requests.every((r) => ['Finish', 'Error'].includes(r.status))).toBe(true);
    expect(list.requests.filter((r) => r.status === 'Finish')).toHaveLength(150);
    expect(new Set(list.requests.map((r) => r.requestId))).toEqual(new Set(ids));
  });
});
