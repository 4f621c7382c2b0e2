import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { PipelineClient } from '../../kit/index.ts';
import { startChild } from '../testing/child.ts';
import { eventually, startService, TEST_API_KEY } from '../testing/service.ts';

const PIPELINES = `
pipelines:
  - id: pl_1
    name: Ingest
    sensor: { format: csv }
    filter:
      - cast: { id: integer }
    joint:
      - table:
          name: ITEMS
          columns:
            - { name: ID, type: BIGINT, from: id }
            - { name: LABEL, type: VARCHAR, from: label }
      - file: { name: 'items-\${requestid}.csv', format: csv }
`;

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function prepare(rows: number): { data: string; definitions: string } {
  const data = mkdtempSync(join(tmpdir(), 'crash-'));
  folders.push(data);
  const definitions = join(data, 'pipelines.yaml');
  writeFileSync(definitions, PIPELINES);
  let csv = 'id,label\n';
  for (let i = 1; i <= rows; i++) csv += `${i},label ${i}\n`;
  mkdirSync(join(data, 'inbox'));
  writeFileSync(join(data, 'inbox', 'big.csv'), csv);
  writeFileSync(join(data, 'inbox', 'small.csv'), 'id,label\n1,one\n2,two\n');
  return { data, definitions };
}

async function childWithData(data: string, definitions: string) {
  const child = await startChild([
    '--data',
    data,
    '--pipelines',
    definitions,
    '--no-demo',
    '--api-key',
    TEST_API_KEY,
    '--workers',
    '1',
  ]);
  return { child, client: new PipelineClient({ baseUrl: child.url, apiKey: TEST_API_KEY }) };
}

describe('crash safety', () => {
  it('after SIGKILL mid-ingest: the running request is Error (retryable), no partial rows, waiting requests run', async () => {
    const { data, definitions } = prepare(1_500_000);
    const { child, client } = await childWithData(data, definitions);
    const big = (await client.exec('pl_1', 'big.csv')).requestId as string;
    const waiting = (await client.exec('pl_1', 'small.csv')).requestId as string;
    // Killed as soon as it runs: rows are flowing into the Joint's open transaction.
    await eventually(
      async () => ((await client.requestDetail(big)).status === 'Process' ? true : undefined),
      'the big request running',
      60_000,
    );
    child.process.kill('SIGKILL');
    expect(await child.exited).toBe('SIGKILL');

    const service = await startService({ dataDir: data, pipelinesFile: definitions, workers: 1 });
    try {
      const crashed = await service.client.requestDetail(big, { appLog: true });
      expect(crashed.status).toBe('Error');
      expect(['Sensor', 'Filter', 'Joint']).toContain(crashed.stage);
      expect(crashed.appLog?.at(-1)?.message).toBe(
        'The service stopped while this request ran; retry it.',
      );
      await eventually(
        async () =>
          (await service.client.requestDetail(waiting)).status === 'Finish' ? true : undefined,
        'the waiting request to run',
      );
      // Only the small request's rows: nothing of the interrupted transaction survived.
      expect((await service.client.table('action', 'ITEMS')).info.total).toBe(2);
      expect(readdirSync(join(data, 'outbox')).filter((n) => n.startsWith('.partial'))).toEqual([]);
      await service.client.retry(big);
      await eventually(
        async () =>
          (await service.client.requestDetail(big)).status === 'Finish' ? true : undefined,
        'the retried request to finish',
        60_000,
      );
      expect((await service.client.table('action', 'ITEMS')).info.total).toBe(1_500_002);
    } finally {
      await service.app.close();
    }
  }, 120_000);

  it('after SIGKILL once a Joint gave way to an operator: its staged rows go at the restart, its table never had them', async () => {
    const { data, definitions } = prepare(1_500_000);
    const raw = new Database(join(data, 'action.db'));
    raw.exec('CREATE TABLE OTHER (ID INTEGER); INSERT INTO OTHER VALUES (1)');
    raw.close();
    const { child, client } = await childWithData(data, definitions);
    const big = (await client.exec('pl_1', 'big.csv')).requestId as string;
    await eventually(
      async () => (((await client.requestDetail(big)).jointRows ?? 0) > 0 ? true : undefined),
      'the Joint writing',
      60_000,
    );
    // The Joint commits what it staged so far and lets the delete in.
    expect((await client.deleteTable('OTHER')).rowCount).toBe(1);
    const staged = (db: Database.Database) =>
      db
        .prepare("SELECT name FROM sqlite_master WHERE name LIKE '\\_JOINT\\_%' ESCAPE '\\'")
        .pluck()
        .all();
    const reader = new Database(join(data, 'action.db'), { readonly: true });
    try {
      expect(staged(reader)).toEqual(['_JOINT_1']);
    } finally {
      reader.close();
    }
    child.process.kill('SIGKILL');
    expect(await child.exited).toBe('SIGKILL');

    const service = await startService({ dataDir: data, pipelinesFile: definitions, workers: 1 });
    try {
      expect((await service.client.requestDetail(big)).status).toBe('Error');
      const action = service.app.context.dbs.action;
      expect(staged(action)).toEqual([]);
      expect(service.app.context.dbs.catalogues.action.find(action, 'ITEMS')).toBeUndefined();
      await service.client.retry(big);
      await eventually(
        async () =>
          (await service.client.requestDetail(big)).status === 'Finish' ? true : undefined,
        'the retried request to finish',
        60_000,
      );
      expect((await service.client.table('action', 'ITEMS')).info.total).toBe(1_500_000);
    } finally {
      await service.app.close();
    }
  }, 120_000);

  it('after SIGTERM: running work stops at a batch boundary, the databases close, and it resumes after a restart', async () => {
    const { data, definitions } = prepare(300_000);
    const { child, client } = await childWithData(data, definitions);
    const big = (await client.exec('pl_1', 'big.csv')).requestId as string;
    await eventually(
      async () => ((await client.requestDetail(big)).status === 'Process' ? true : undefined),
      'the request running',
      60_000,
    );
    child.process.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    // A clean close checkpoints and removes the WAL files.
    expect(readdirSync(data).filter((n) => n.endsWith('-wal'))).toEqual([]);
    const service = await startService({ dataDir: data, pipelinesFile: definitions });
    try {
      await eventually(
        async () =>
          (await service.client.requestDetail(big)).status === 'Finish' ? true : undefined,
        'the request to finish after the restart',
        60_000,
      );
      expect((await service.client.table('action', 'ITEMS')).info.total).toBe(300_000);
    } finally {
      await service.app.close();
    }
  }, 120_000);
});

describe('crash safety around cancel and retry', () => {
  async function killWhen(
    client: PipelineClient,
    requestId: string,
    child: Awaited<ReturnType<typeof startChild>>,
    act?: () => Promise<unknown>,
  ) {
    await eventually(
      async () => ((await client.requestDetail(requestId)).status === 'Process' ? true : undefined),
      'running',
      60_000,
    );
    if (act) await act();
    child.process.kill('SIGKILL');
    expect(await child.exited).toBe('SIGKILL');
  }

  it('SIGKILL right after a cancel: the request is Stop or Error, never half-written, and retries cleanly', async () => {
    const { data, definitions } = prepare(1_500_000);
    const { child, client } = await childWithData(data, definitions);
    const big = (await client.exec('pl_1', 'big.csv')).requestId as string;
    await killWhen(client, big, child, () => client.cancel(big));
    const service = await startService({ dataDir: data, pipelinesFile: definitions });
    try {
      expect(['Stop', 'Error']).toContain((await service.client.requestDetail(big)).status);
      const tables = (await service.client.tables('action')).tables;
      if (tables.includes('ITEMS'))
        expect((await service.client.table('action', 'ITEMS')).info.total).toBe(0);
      expect(readdirSync(join(data, 'outbox'))).toEqual([]);
      await service.client.retry(big);
      await eventually(
        async () =>
          (await service.client.requestDetail(big)).status === 'Finish' ? true : undefined,
        'finish',
        60_000,
      );
      expect((await service.client.table('action', 'ITEMS')).info.total).toBe(1_500_000);
    } finally {
      await service.app.close();
    }
  }, 120_000);

  it('SIGKILL during a retry: Error again with nothing of either attempt half-written; the next retry completes once', async () => {
    const { data, definitions } = prepare(1_500_000);
    const { child, client } = await childWithData(data, definitions);
    const big = (await client.exec('pl_1', 'big.csv')).requestId as string;
    await eventually(
      async () => ((await client.requestDetail(big)).status === 'Process' ? true : undefined),
      'running',
      60_000,
    );
    await client.cancel(big);
    await eventually(
      async () => ((await client.requestDetail(big)).status === 'Stop' ? true : undefined),
      'stopped',
      60_000,
    );
    await client.retry(big);
    await killWhen(client, big, child);
    const service = await startService({ dataDir: data, pipelinesFile: definitions });
    try {
      const detail = await service.client.requestDetail(big, { appLog: true });
      expect(detail.status).toBe('Error');
      expect(detail.appLog?.at(-1)?.message).toBe(
        'The service stopped while this request ran; retry it.',
      );
      const tables = (await service.client.tables('action')).tables;
      if (tables.includes('ITEMS'))
        expect((await service.client.table('action', 'ITEMS')).info.total).toBe(0);
      await service.client.retry(big);
      await eventually(
        async () =>
          (await service.client.requestDetail(big)).status === 'Finish' ? true : undefined,
        'finish',
        60_000,
      );
      expect((await service.client.table('action', 'ITEMS')).info.total).toBe(1_500_000);
      const all = await service.client.requestList({ pageSize: 1000 });
      expect(
        all.requests.every((r) => ['Finish', 'Error', 'Stop', 'Wait'].includes(r.status)),
      ).toBe(true);
    } finally {
      await service.app.close();
    }
  }, 120_000);
});
