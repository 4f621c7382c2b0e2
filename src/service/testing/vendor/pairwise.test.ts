import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MESSAGES } from './behaviour.ts';
import { pairwiseBehaviours, VENDOR_PAIRWISE, VENDOR_SPACE } from './pairwise.ts';
import { startVendorService } from './vendor-service.ts';

type Dimensions = Record<string, readonly unknown[]>;

/** Every pair of values of two dimensions that no combination holds. */
function missingPairs(dimensions: Dimensions, combinations: readonly Record<string, unknown>[]) {
  const names = Object.keys(dimensions);
  const missing: string[] = [];
  names.forEach((first, i) =>
    names.slice(i + 1).forEach((second) => {
      for (const a of dimensions[first] ?? [])
        for (const b of dimensions[second] ?? [])
          if (!combinations.some((c) => c[first] === a && c[second] === b))
            missing.push(`${first}=${JSON.stringify(a)} ${second}=${JSON.stringify(b)}`);
    }),
  );
  return missing;
}

const product = (dimensions: Dimensions) =>
  Object.values(dimensions).reduce((count, values) => count * values.length, 1);

describe('pairwiseBehaviours', () => {
  it('covers every pair of VENDOR_SPACE in far fewer vendors than all of them', () => {
    expect(missingPairs(VENDOR_SPACE, VENDOR_PAIRWISE)).toEqual([]);
    expect(product(VENDOR_SPACE)).toBe(311_040);
    expect(VENDOR_PAIRWISE.length).toBeLessThanOrEqual(25);
    for (const vendor of VENDOR_PAIRWISE)
      expect(Object.keys(vendor).sort()).toEqual(Object.keys(VENDOR_SPACE).sort());
  });

  it('gives the same vendors on every run', () => {
    expect(pairwiseBehaviours(VENDOR_SPACE)).toEqual(VENDOR_PAIRWISE);
  });

  it('covers every pair of any dimensions, with values of their own', () => {
    const dimensions = fc.dictionary(
      fc.string({ minLength: 1, maxLength: 4 }),
      fc.uniqueArray(fc.integer({ min: 0, max: 20 }), { minLength: 1, maxLength: 5 }),
      { maxKeys: 7 },
    );
    fc.assert(
      fc.property(dimensions, (dims) => {
        const combinations = pairwiseBehaviours(dims);
        expect(missingPairs(dims, combinations)).toEqual([]);
        expect(combinations.length).toBeLessThanOrEqual(Math.max(1, product(dims)));
        for (const combination of combinations)
          for (const [name, values] of Object.entries(dims))
            expect(values).toContain(combination[name]);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps small spaces small', () => {
    const four = { a: [1, 2, 3], b: [1, 2, 3], c: [1, 2, 3], d: [1, 2, 3] };
    expect(pairwiseBehaviours(four).length).toBeLessThanOrEqual(12);
    expect(pairwiseBehaviours({ only: ['x', 'y'] })).toEqual([{ only: 'x' }, { only: 'y' }]);
    expect(pairwiseBehaviours({})).toEqual([{}]);
    expect(() => pairwiseBehaviours({ none: [] })).toThrow();
  });
});

describe.each(VENDOR_PAIRWISE.map((vendor, i) => ({ i, vendor })))(
  'pairwise vendor $i',
  ({ vendor: { variant, ...behaviour } }) => {
    it('pages, refuses and declares itself as its switches say', async () => {
      const vendor = await startVendorService({ variant, behaviour });
      try {
        vendor.addRequests('pl_1', 300);
        vendor.addRequests('pl_1', 1, 'daily.csv', 'failed');
        const read = async (response: Response) => {
          const type = response.headers.get('content-type') ?? '';
          const charset = /charset=([^;]+)/.exec(type)?.[1];
          expect(charset?.toLowerCase()).toBe(behaviour.charset);
          return new TextDecoder(charset).decode(await response.arrayBuffer());
        };
        const key = { 'X-Pipelinewebapi': vendor.apiKey };
        const page = await fetch(`${vendor.url}/pipelineapi/requestlist/xml?index=100`, {
          headers: key,
        });
        expect(page.headers.get('content-encoding')).toBe(behaviour.gzip ? 'gzip' : null);
        expect(page.headers.get('set-cookie') !== null).toBe(behaviour.sessionId);
        // Index 100 is row 100, or page 100 (past the day's 301 rows), or nothing.
        const size = behaviour.pagesize === 'ignored' ? Infinity : 100;
        const start = Math.min(
          301,
          behaviour.index === 'pages' ? 100 * size : behaviour.index ? 100 : 0,
        );
        const list = await read(page);
        expect(list.split('<Request>').length - 1).toBe(Math.min(size, 301 - start));
        expect(list).toContain(`<Index>${behaviour.index ? 100 : 0}</Index>`);
        expect(list.includes('<Next>')).toBe(behaviour.next !== 'absent');
        expect(list.includes('<Total>301</Total>')).toBe(behaviour.total);
        const refused = await fetch(`${vendor.url}/pipelineapi/requestretry/xml?requestid=none`, {
          method: 'PUT',
          headers: key,
        });
        expect(await read(refused)).toContain(MESSAGES[behaviour.language].noRequest('none'));
        const wrong = await fetch(`${vendor.url}/pipelineapi/list/xml`, {
          headers: { 'X-Pipelinewebapi': 'wrong-key-42' },
        });
        expect((await read(wrong)).includes('wrong-key-42')).toBe(behaviour.echoKey);
      } finally {
        await vendor.close();
      }
    });
  },
);
