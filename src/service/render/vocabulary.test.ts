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
import type { OperationSample, SampleFixture, OperationModule } from '../pipelineapi/operation.ts';
import { OPERATION_MODULES } from '../pipelineapi/operations/index.ts';
import { Params } from '../pipelineapi/params.ts';
import { errorDocument } from '../pipelineapi/answers/execute-response.ts';
import { ordersCsv, TEST_PIPELINES } from '../testing/pipelines.ts';
import { startService, type TestService } from '../testing/service.ts';
import type { Document } from './document.ts';
import { renderHtml, renderJson, renderXml } from './render.ts';

// Every operation's samples (the `samples` of its module, pipelineapi/operation.ts), answered
// by the real handlers of a real service in this process, are rendered by the service's
// renderer in the three formats and decoded by the kit: the three trees must be the same,
// and every element must be in the wire vocabulary. An element missing from the vocabulary,
// or typed there otherwise than the handler writes it, fails here instead of decoding
// differently in production.

let service: TestService;
const samples: { label: string; doc: Document }[] = [];

const SAMPLED = (Object.entries(OPERATION_MODULES) as [OperationName, OperationModule][]).flatMap(
  ([operation, module]) => module.samples.map((sample) => ({ operation, sample })),
);

function call(operation: OperationName, sample: OperationSample, fixture: SampleFixture) {
  return OPERATION_MODULES[operation].embedded(
    service.app.context,
    new Params(sample.fields?.(fixture) ?? {}, undefined),
  );
}

async function answer(
  operation: OperationName,
  sample: OperationSample,
  fixture: SampleFixture,
): Promise<void> {
  samples.push({ label: sample.label, doc: await call(operation, sample, fixture) });
}

async function failure(
  operation: OperationName,
  sample: OperationSample,
  fixture: SampleFixture,
): Promise<void> {
  try {
    await call(operation, sample, fixture);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    samples.push({ label: sample.label, doc: errorDocument(error) });
    return;
  }
  throw new Error(`${sample.label}: ${operation} did not fail`);
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

/** The state every sample is answered on: see SampleFixture. */
async function makeFixture(): Promise<SampleFixture> {
  const inbox = join(service.dataDir, 'inbox');
  writeFileSync(join(inbox, 'orders.csv'), ordersCsv(12));
  writeFileSync(join(inbox, 'events.jsonl'), '{"kind":"a","n":1}\n{"kind":"b"}\n');
  const finished = (await service.client.exec('pl_1', 'orders.csv')).requestId as string;
  const failed = (await service.client.exec('pl_1', 'missing.csv')).requestId as string;
  await service.client.exec('pl_2', 'events.jsonl');
  // pl_3 is suspended: its request waits.
  const waiting = (await service.client.exec('pl_3', 'orders.csv')).requestId as string;
  await service.app.engine.whenIdle();
  const day = dayOfRequestId(finished) as string;
  // A status outside the contract (an open set), for requeststats to count on its own.
  service.app.context.dbs.status
    .prepare(`UPDATE ${statusTableName(day)} SET STATUS = 'Held' WHERE PIPELINEID = 'pl_2'`)
    .run();
  return { day, finished, failed, waiting };
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
  const fixture = await makeFixture();

  // Reads first, while every table and request is as the fixture made it.
  for (const { operation, sample } of SAMPLED)
    if (sample.fails === undefined && sample.phase === 'read')
      await answer(operation, sample, fixture);
  // Then every change, each once, with nothing left running after it.
  for (const { operation, sample } of SAMPLED) {
    if (sample.fails === undefined && sample.phase === 'change') {
      await answer(operation, sample, fixture);
      await service.app.engine.whenIdle();
    }
  }
  // And the errors of the contract's section 3.
  for (const { operation, sample } of SAMPLED)
    if (sample.fails) await failure(operation, sample, fixture);
  // And an error no operation's sample can make.
  samples.push({
    label: '500/5000 system error',
    doc: errorDocument(new ApiError(500, 5000, 'Unexpected failure (correlation id c-1).')),
  });
});

afterAll(async () => {
  await service.close();
});

describe('the wire vocabulary', () => {
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
