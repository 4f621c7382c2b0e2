import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { xmlToTree, type TreeObject } from '../../kit/index.ts';
import { ordersCsv, STRICT_CODES_PIPELINE, writeTestPipelines } from '../testing/pipelines.ts';
import { startService, type TestService } from '../testing/service.ts';

// Contract section 10: requestdetail states per stage the rows the Sensor read, the Filter
// kept and the Joint wrote; the status database keeps them, so they outlive the process.

const STRICT = `pipelines:\n${STRICT_CODES_PIPELINE}`;

const services: TestService[] = [];
const folders: string[] = [];

afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
  for (const f of folders.splice(0)) rmSync(f, { recursive: true, force: true });
});

async function start(dataDir: string, pipelinesFile: string): Promise<TestService> {
  const s = await startService({ dataDir, pipelinesFile });
  services.push(s);
  return s;
}

function folder(): string {
  const path = mkdtempSync(join(tmpdir(), 'stage-rows-'));
  folders.push(path);
  return path;
}

describe('rows per stage', () => {
  it('are exact for a run of a file with known rows, in XML too, and after a restart', async () => {
    const data = folder();
    const definitions = writeTestPipelines(folder());
    let s = await start(data, definitions);
    // 12 rows of amounts 1.5 … 12.5; pl_1 keeps amount >= 10 (its default minAmount): 3.
    writeFileSync(join(data, 'inbox', 'orders.csv'), ordersCsv(12));
    const { requestId } = await s.client.exec('pl_1', 'orders.csv');
    await s.app.engine.whenIdle();
    const detail = await s.client.requestDetail(requestId as string);
    expect(detail.status).toBe('Finish');
    expect(detail).toMatchObject({ sensorRows: 12, filterKept: 3, jointRows: 3 });
    const xml = await (
      await s.keyed(`/pipelineapi/requestdetail/xml?requestid=${requestId as string}`)
    ).text();
    expect((xmlToTree(xml).RequestDetail as TreeObject).SensorRows).toBe(12);
    expect(xml).toContain('<FilterKept>3</FilterKept>');
    expect(xml).toContain('<JointRows>3</JointRows>');

    await s.close();
    services.splice(services.indexOf(s), 1);
    s = await start(data, definitions);
    expect(await s.client.requestDetail(requestId as string)).toMatchObject({
      sensorRows: 12,
      filterKept: 3,
      jointRows: 3,
    });
  });

  it('of a request that failed in the Filter: the Sensor rows, no Joint rows', async () => {
    const data = folder();
    const definitions = join(folder(), 'strict.yaml');
    writeFileSync(definitions, STRICT);
    const s = await start(data, definitions);
    writeFileSync(join(data, 'inbox', 'codes.csv'), 'code\n1\ntwo\n3\n4\n');
    const { requestId } = await s.client.exec('pl_2', 'codes.csv');
    await s.app.engine.whenIdle();
    const detail = await s.client.requestDetail(requestId as string);
    expect(detail).toMatchObject({ status: 'Error', stage: 'Filter', sensorRows: 4 });
    expect(detail.jointRows).toBeUndefined();
    const json = (await (
      await s.keyed(`/pipelineapi/requestdetail/json?requestid=${requestId as string}`)
    ).json()) as { RequestDetail: Record<string, unknown> };
    expect(json.RequestDetail).not.toHaveProperty('JointRows');
  });

  it('are absent from a request that has not run', async () => {
    const data = folder();
    const s = await start(data, writeTestPipelines(folder()));
    // pl_3 is suspended: its request waits.
    const { requestId } = await s.client.exec('pl_3', 'orders.csv');
    const detail = await s.client.requestDetail(requestId as string);
    expect(detail.status).toBe('Wait');
    expect(detail).not.toHaveProperty('sensorRows');
    expect(detail).not.toHaveProperty('filterKept');
    expect(detail).not.toHaveProperty('jointRows');
  });
});
