import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import {
  decodeExecuteResponse,
  decodePipelineList,
  decodeRequestList,
  decodeTablePage,
} from '../../kit/records.ts';
import { htmlToTree, jsonToTree, xmlToTree } from '../../kit/index.ts';
import { REQUEST_ID_PATTERN } from '../../kit/wire.ts';
import { openDatabases } from '../db/databases.ts';
import { createRequest } from '../db/status/requests.ts';
import { pageInfo } from '../pipelineapi/paging.ts';
import { Params } from '../pipelineapi/params.ts';
import { CData, type Document } from '../render/document.ts';
import { renderHtml, renderJson, renderXml } from '../render/render.ts';

// Text XML 1.0 can carry: the renderer replaces the rest with U+FFFD, so round trips are
// compared on strings that hold none of it (and a separate property checks the rest stays well-formed).
const xmlSafe = fc
  .string({ unit: 'grapheme-composite', maxLength: 40 })
  // eslint-disable-next-line no-control-regex -- the characters XML 1.0 cannot carry
  .map((s) => s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, ''));
const anyText = fc.string({ unit: 'binary', maxLength: 40 });

describe('parameter parsing', () => {
  it('integer accepts exactly the decimal numbers in range', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 12 }),
        fc.integer({ min: 0, max: 50 }),
        fc.integer({ min: 50, max: 5000 }),
        (text, min, max) => {
          const params = new Params({ n: text }, undefined);
          const valid = /^\d{1,10}$/.test(text) && Number(text) >= min && Number(text) <= max;
          if (text === '') return params.integer('n', 7, min, max) === 7;
          let result: number | { code: number };
          try {
            result = params.integer('n', 7, min, max);
          } catch (error) {
            result = { code: (error as { code: number }).code };
          }
          return valid
            ? result === Number(text)
            : typeof result === 'object' && result.code === 1002;
        },
      ),
    );
  });

  it('boolean accepts only true and false; a repeated field is always refused', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 8 }), (text) => {
        const params = new Params({ b: text }, undefined);
        if (text === '') return params.boolean('b', false) === false;
        try {
          const value = params.boolean('b', false);
          return (text === 'true' && value) || (text === 'false' && !value);
        } catch {
          return text !== 'true' && text !== 'false';
        }
      }),
    );
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 2, maxLength: 4 }), (values) => {
        expect(() => new Params({ x: values }, undefined).optional('x')).toThrow(/more than once/);
      }),
    );
  });

  it('a body field wins over a query field of the same name', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.string({ minLength: 1 }),
        (query, body) =>
          new Params({ f: query }, { f: body }).optional('f', 1e9) === body ||
          body.includes('\uFFFD'),
      ),
    );
  });
});

describe('RequestId generation', () => {
  it('gives ids of the contract shape, serials counting per pipeline and day, never twice', () => {
    const dbs = openDatabases(mkdtempSync(join(tmpdir(), 'ids-')));
    try {
      fc.assert(
        fc.property(
          fc.array(
            fc.record({
              pipeline: fc.integer({ min: 1, max: 4 }),
              day: fc.constantFrom('20261120', '20261121'),
              hour: fc.integer({ min: 0, max: 23 }),
            }),
            { maxLength: 30 },
          ),
          (execs) => {
            for (const e of execs) {
              const pipelineId = `pl_${e.pipeline}`;
              const before = dbs.status
                .prepare('SELECT LAST FROM REQUEST_SERIAL WHERE DAY = ? AND PIPELINEID = ?')
                .get(e.day, pipelineId) as { LAST: number } | undefined;
              const id = createRequest(dbs.status, {
                pipelineId,
                filename: 'f',
                args: {},
                day: e.day,
                hour: String(e.hour).padStart(2, '0'),
                stamp: '2026-11-21 00:00:00.000',
              });
              const match = REQUEST_ID_PATTERN.exec(id);
              if (!match || match[1] !== pipelineId || match[2] !== e.day) return false;
              if (Number(match[4]) !== (before?.LAST ?? 0) + 1) return false;
            }
            const all = dbs.status.prepare('SELECT REQUESTID FROM REQUEST').all() as {
              REQUESTID: string;
            }[];
            return new Set(all.map((r) => r.REQUESTID)).size === all.length;
          },
        ),
      );
    } finally {
      dbs.close();
    }
  });
});

describe('paging arithmetic', () => {
  it('keeps Index, Prev, Next and Count consistent with the total', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 0, max: 5000 }),
        (total, size, index) => {
          const count = Math.max(0, Math.min(size, total - index));
          const info = pageInfo(index, size, count, total);
          expect(info.Index).toBe(index);
          expect(info.Count).toBe(count);
          expect(info.Next === -1).toBe(index + count >= total);
          if (info.Next !== -1) expect(info.Next).toBe(index + size);
          expect(info.Prev === -1).toBe(index === 0);
          if (info.Prev !== -1) {
            expect(info.Prev).toBeGreaterThanOrEqual(0);
            expect(info.Prev).toBeLessThan(index);
            // Past the end, Prev points at the last page there is, however far back.
            if (index <= total) expect(index - info.Prev).toBeLessThanOrEqual(size);
            else expect(info.Prev).toBe(Math.max(0, total - size));
          }
        },
      ),
    );
  });
});

describe('renderers', () => {
  const pipelineDoc = (names: string[], descriptions: string[]): Document => ({
    root: 'PipelineList',
    body: {
      PipeLine: names.map((name, i) => ({
        Id: `pl_${i + 1}`,
        Name: name,
        Runmode: 'run',
        Createdate: '2026-11-21T09:00:00.000 UTC',
        Updatedate: '2026-11-21T09:00:00.000 UTC',
        Description: descriptions[i] ?? '',
      })),
    },
  });

  it('write well-formed XML for any text, control characters included', () => {
    fc.assert(
      fc.property(fc.array(anyText, { maxLength: 5 }), anyText, (names, cdata) => {
        const doc: Document = {
          root: 'RequestDetail',
          body: { Name: names.join('|'), SensorFile: new CData(cdata), Items: { Item: names } },
        };
        expect(XMLValidator.validate(renderXml(doc))).toBe(true);
        expect(() => JSON.parse(renderJson(doc))).not.toThrow();
      }),
    );
  });

  it('round-trip XML, JSON and HTML through the kit to the same records', () => {
    fc.assert(
      fc.property(
        fc.array(xmlSafe, { maxLength: 6 }),
        fc.array(xmlSafe, { maxLength: 6 }),
        (names, descriptions) => {
          const doc = pipelineDoc(names, descriptions);
          const fromJson = decodePipelineList(jsonToTree(renderJson(doc)));
          expect(decodePipelineList(xmlToTree(renderXml(doc)))).toEqual(fromJson);
          expect(decodePipelineList(htmlToTree(renderHtml(doc)))).toEqual(fromJson);
          const tree = jsonToTree(renderJson(doc));
          expect(xmlToTree(renderXml(doc))).toEqual(tree);
          expect(htmlToTree(renderHtml(doc))).toEqual(tree);
          expect(fromJson.map((p) => p.name)).toEqual(names);
        },
      ),
    );
  });

  it('round-trip table pages with NULL, empty and arbitrary cells', () => {
    const cell = fc.oneof(xmlSafe, fc.constant(null), fc.constant(''), fc.constant('  '));
    fc.assert(
      fc.property(
        fc.array(fc.array(cell, { minLength: 2, maxLength: 2 }), { maxLength: 6 }),
        (rows) => {
          const doc: Document = {
            root: 'Result',
            body: {
              Info: { Index: 0, Prev: -1, Next: -1, Count: rows.length, Total: rows.length },
              Header: {
                Item: [
                  { Name: 'A', Type: 'VARCHAR', Key: 'true' },
                  { Name: 'B', Type: 'BIGINT', Key: 'false' },
                ],
              },
              Record: rows.map((r) => ({ Item: r })),
              Status: 'OK',
            },
          };
          const fromJson = decodeTablePage(jsonToTree(renderJson(doc)));
          expect(fromJson.rows).toEqual(rows);
          expect(decodeTablePage(xmlToTree(renderXml(doc)))).toEqual(fromJson);
          expect(decodeTablePage(htmlToTree(renderHtml(doc)))).toEqual(fromJson);
          // The trees too, not only the records: the three readers follow one vocabulary.
          const tree = jsonToTree(renderJson(doc));
          expect(xmlToTree(renderXml(doc))).toEqual(tree);
          expect(htmlToTree(renderHtml(doc))).toEqual(tree);
        },
      ),
    );
  });

  it('round-trip request lists and error answers with their numbers typed', () => {
    fc.assert(
      fc.property(
        fc.array(xmlSafe, { maxLength: 4 }),
        fc.integer({ min: 1000, max: 5999 }),
        xmlSafe,
        (names, code, message) => {
          const list: Document = {
            root: 'RequestList',
            body: {
              Request: names.map((name, i) => ({
                RequestId: `pl_1-20261121_09-00000${i}`,
                PipelineId: 'pl_1',
                Name: name,
                Status: 'Finish',
                Stage: 'Complete',
                BeginDate: '2026-11-21 09:00:00',
              })),
              Info: {
                Index: 0,
                Prev: -1,
                Next: -1,
                Count: names.length,
                Error: false,
                Date: '20261121',
                Id: '',
                Total: names.length,
              },
            },
          };
          const fromJson = decodeRequestList(jsonToTree(renderJson(list)));
          expect(decodeRequestList(xmlToTree(renderXml(list)))).toEqual(fromJson);
          expect(decodeRequestList(htmlToTree(renderHtml(list)))).toEqual(fromJson);
          const error: Document = {
            root: 'ExecuteResponse',
            body: { Status: 'Error', Code: code, Message: message },
          };
          for (const tree of [xmlToTree(renderXml(error)), htmlToTree(renderHtml(error))]) {
            expect(decodeExecuteResponse(tree)).toEqual(
              decodeExecuteResponse(jsonToTree(renderJson(error))),
            );
          }
        },
      ),
    );
  });
});
