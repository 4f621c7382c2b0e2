import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  htmlToTree,
  jsonToTree,
  xmlToTree,
  type TreeObject,
  type TreeValue,
} from '../../kit/index.ts';
import {
  ELEMENTS,
  OPERATIONS,
  ROOTS,
  WITHIN,
  dayOfRequestId,
  elementSpec,
  statusTableName,
  vocabularyProblems,
  type ElementName,
  type OperationName,
  type RootSpec,
  type WithinName,
} from '../../kit/wire.ts';
import { ApiError } from '../errors.ts';
import { OPERATION_MODULES } from '../pipelineapi/operations/index.ts';
import { Params } from '../pipelineapi/params.ts';
import { errorDocument } from '../pipelineapi/answers/execute-response.ts';
import { ordersCsv, TEST_PIPELINES } from '../testing/pipelines.ts';
import { startService, type TestService } from '../testing/service.ts';
import type { Document } from './document.ts';
import { renderHtml, renderJson, renderXml } from './render.ts';

// Every operation's answer, made by the real handlers of a real service in this process,
// is rendered by the service's renderer in the three formats and decoded by the kit: the
// three trees must be the same, and every element must be in the wire vocabulary. An
// element missing from the vocabulary, or typed there otherwise than the handler writes
// it, fails here instead of decoding differently in production.

let service: TestService;
const samples: { label: string; operation: OperationName | 'error'; doc: Document }[] = [];

async function answer(
  label: string,
  operation: OperationName,
  fields: Record<string, string> = {},
): Promise<void> {
  const doc = await OPERATION_MODULES[operation].embedded(
    service.app.context,
    new Params(fields, undefined),
  );
  samples.push({ label, operation, doc });
}

async function failure(
  label: string,
  operation: OperationName,
  fields: Record<string, string>,
): Promise<void> {
  try {
    await OPERATION_MODULES[operation].embedded(service.app.context, new Params(fields, undefined));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    samples.push({ label, operation: 'error', doc: errorDocument(error) });
    return;
  }
  throw new Error(`${label}: ${operation} did not fail`);
}

/** The tree without the elements the HTML form does not carry (a pipeline's Args). */
function withoutHtmlOmitted(value: TreeValue): TreeValue {
  if (Array.isArray(value)) return value.map(withoutHtmlOmitted);
  if (value === null || typeof value !== 'object') return value;
  const out: TreeObject = {};
  for (const [name, child] of Object.entries(value)) {
    if (elementSpec(name)?.html !== 'omitted') out[name] = withoutHtmlOmitted(child);
  }
  return out;
}

beforeAll(async () => {
  // The test pipelines and one whose Args declare rules (Type, Required, Pattern, Choice).
  const definitions = join(mkdtempSync(join(tmpdir(), 'vocabulary-defs-')), 'defs.yaml');
  writeFileSync(
    definitions,
    `${TEST_PIPELINES}
  - id: pl_7
    name: Typed
    args:
      - { name: minAmount, default: '10', type: integer, required: true }
      - { name: code, pattern: '[A-Z]{3}' }
      - { name: region, default: EU, choices: [EU, US] }
      - { name: only, default: A, choices: [A] }
    joint:
      - file: { name: 'typed.csv', format: csv }
`,
  );
  service = await startService({ pipelinesFile: definitions });
  const inbox = join(service.dataDir, 'inbox');
  writeFileSync(join(inbox, 'orders.csv'), ordersCsv(12));
  writeFileSync(join(inbox, 'events.jsonl'), '{"kind":"a","n":1}\n{"kind":"b"}\n');
  const finished = (await service.client.exec('pl_1', 'orders.csv')).requestId as string;
  const failed = (await service.client.exec('pl_1', 'missing.csv')).requestId as string;
  await service.client.exec('pl_2', 'events.jsonl');
  await service.app.engine.whenIdle();
  const day = dayOfRequestId(finished) as string;

  // Reads first, while every table is there.
  await answer('list: pl_1 with Args, pl_2 and pl_3 without, pl_7 with rules', 'list');
  await answer('inbox with two files', 'inbox');
  await answer('requestlist of a day, with Total', 'requestlist', { date: day });
  await answer('requestlist of one record', 'requestlist', { date: day, id: 'pl_2' });
  await answer('requestlist of an empty day', 'requestlist', { date: '20000101' });
  await answer('requestdetail with both logs', 'requestdetail', {
    requestid: finished,
    requestlog: 'true',
    applog: 'true',
  });
  await answer('requestdetail of a failure with both logs', 'requestdetail', {
    requestid: failed,
    requestlog: 'true',
    applog: 'true',
  });
  await answer('requestdetail without logs', 'requestdetail', { requestid: finished });
  // A status outside the contract (an open set) is its own Count; pl_3 has no request yet,
  // so its Pipeline has no Count at all (an empty list XML cannot write).
  service.app.context.dbs.status
    .prepare(`UPDATE ${statusTableName(day)} SET STATUS = 'Held' WHERE PIPELINEID = 'pl_2'`)
    .run();
  await answer(
    'requeststats of a day, an unknown status, a pipeline without requests',
    'requeststats',
    {
      date: day,
    },
  );
  await answer('requeststats of one pipeline', 'requeststats', { date: day, id: 'pl_1' });
  await answer('requeststats of an empty day', 'requeststats', { date: '20000101' });
  await answer('version', 'version');
  await answer('systemdb table list', 'systemdb');
  await answer('systemdb page', 'systemdb', { tablename: 'PIPELINE', pagesize: '5' });
  await answer('statusdb table list', 'statusdb');
  await answer('statusdb page with NULL cells and a key column', 'statusdb', {
    tablename: statusTableName(day),
  });
  await answer('actiondb table list', 'actiondb');
  await answer('actiondb page with a key column', 'actiondb', { tablename: 'ORDERS' });
  await answer('actiondb page with a NULL cell', 'actiondb', { tablename: 'EVENTS' });
  await answer('actiondb empty page', 'actiondb', { tablename: 'ORDERS', index: '1000' });

  // Then every change, each once.
  await answer('exec (a suspended pipeline: the request waits)', 'exec', {
    pipelineid: 'pl_3',
    filename: 'orders.csv',
  });
  const waiting = service.app.context.dbs.status
    .prepare("SELECT REQUESTID FROM REQUEST WHERE PIPELINEID = 'pl_3'")
    .pluck()
    .get() as string;
  await answer('requestcancel', 'requestcancel', { requestid: waiting });
  await answer('requestretry', 'requestretry', { requestid: failed });
  await service.app.engine.whenIdle();
  await answer('suspend', 'suspend', { pipelineid: 'pl_2' });
  await answer('resume', 'resume', { pipelineid: 'pl_2' });
  await answer('pipelinecache', 'pipelinecache', { pipelineid: 'pl_1', sensor: 'true' });
  await answer('deletetable, with RowCount', 'deletetable', { table: 'ORDERS' });
  await answer('droptable, with RowCount', 'droptable', { table: 'EVENTS' });

  // And the errors of the contract's section 3.
  await failure('400/1001 missing parameter', 'exec', { filename: 'orders.csv' });
  await failure('400/1002 bad parameter', 'requestlist', { date: '2026-11-21' });
  await failure('400/1002 bad day of requeststats', 'requeststats', { date: '20261131' });
  await failure('404/1201 requeststats of an unknown pipeline', 'requeststats', { id: 'pl_99' });
  await failure('404/1202 unknown request', 'requestdetail', {
    requestid: 'pl_1-20000101_00-000001',
  });
  await failure('409/1301 state conflict', 'requestcancel', { requestid: finished });
  samples.push({
    label: '500/5000 system error',
    operation: 'error',
    doc: errorDocument(new ApiError(500, 5000, 'Unexpected failure (correlation id c-1).')),
  });
});

afterAll(async () => {
  await service.close();
});

describe('the wire vocabulary', () => {
  it('has a sample answer of every operation here', () => {
    const sampled = new Set(samples.map((s) => s.operation));
    for (const operation of Object.keys(OPERATIONS))
      expect(sampled, operation).toContain(operation);
  });

  it('covers every element of every answer, typed as the handlers write it', () => {
    for (const { label, doc } of samples) {
      expect(vocabularyProblems(JSON.parse(renderJson(doc)) as TreeObject), label).toEqual([]);
    }
  });

  it('decodes XML, JSON and HTML of every answer to the same tree', () => {
    for (const { label, doc } of samples) {
      const json = renderJson(doc);
      const fromJson = jsonToTree(json);
      // A conforming answer reads back exactly as it was written.
      expect(fromJson, `${label} (json)`).toEqual(JSON.parse(json));
      expect(xmlToTree(renderXml(doc)), `${label} (xml)`).toEqual(fromJson);
      expect(htmlToTree(renderHtml(doc)), `${label} (htm)`).toEqual(withoutHtmlOmitted(fromJson));
    }
  });

  it('reads a record written alone and numbers written as text as the contract types them', () => {
    const loose = JSON.stringify({
      RequestList: {
        Request: { RequestId: 'pl_1-20261121_09-000001', Name: 'x' },
        Info: { Index: '0', Prev: '-1', Next: '-1', Count: '1', Error: 'false', Date: '20261121' },
      },
    });
    expect(jsonToTree(loose)).toEqual({
      RequestList: {
        Request: [{ RequestId: 'pl_1-20261121_09-000001', Name: 'x' }],
        Info: { Index: 0, Prev: -1, Next: -1, Count: 1, Error: false, Date: '20261121' },
      },
    });
  });

  it('is consistent: names apart in lower case, held and record elements repeat', () => {
    const names = Object.keys(ELEMENTS) as ElementName[];
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(names.length);
    for (const name of names) {
      const holds = elementSpec(name)?.holds;
      if (holds !== undefined)
        expect(elementSpec(holds, name)?.repeated, `${name} holds ${holds}`).toBe(true);
    }
    for (const key of Object.keys(WITHIN) as WithinName[]) {
      const [parent, name] = key.split('/') as [string, string];
      const holds = WITHIN[key].holds;
      if (holds !== undefined)
        expect(elementSpec(holds, name)?.repeated, `${key} holds ${holds}`).toBe(true);
      // A parent is an element or a root someone can be under.
      expect(
        elementSpec(parent) !== undefined ||
          Object.hasOwn(ROOTS, parent) ||
          Object.keys(WITHIN).some((k) => k.endsWith(`/${parent}`)),
        key,
      ).toBe(true);
    }
    for (const [root, spec] of Object.entries(ROOTS) as [string, RootSpec][]) {
      expect(elementSpec(root), `root ${root} is no element`).toBeUndefined();
      if (spec.record) expect(elementSpec(spec.record, root)?.repeated, root).toBe(true);
      for (const part of spec.parts ?? []) {
        const partSpec = elementSpec(part, root);
        // A part is a group of records, or records of the root themselves.
        expect(partSpec?.holds !== undefined || partSpec?.repeated === true, part).toBe(true);
      }
    }
  });
});
