import fc from 'fast-check';
import iconv from 'iconv-lite';
import type { VendorBehaviour } from './behaviour.ts';
import type { RequestIdParts, VendorIds, VendorVariant } from './vendor-service.ts';

// Vendors drawn from the whole space the double can play (issue 37, item 6), not only the
// switches we thought of together: ids of any form, status words in any language, any
// zone, paging by rows or pages with truthful, absent or lying Next and Total and any cap,
// whole-day answers, charsets, date forms, languages, refusals as envelopes or HTTP,
// session cookies, gzip, a limit on calls at once. One seed is one vendor, the same on every
// run, so a failure names a vendor that can be started again (npm run fuzz -- vendors
// --seed N).

/** A vendor and the day it holds, from one seed. */
export interface GeneratedVendor {
  readonly seed: number;
  readonly variant: VendorVariant;
  readonly ids: VendorIds;
  readonly behaviour: Partial<VendorBehaviour>;
  /** Requests of the day: finished (of the first pipeline), failed (second), waiting (first). */
  readonly requests: { readonly done: number; readonly failed: number; readonly waiting: number };
  /** Rows added to its SALES table. */
  readonly salesRows: number;
}

/** Letters of several scripts, and the marks ids and words carry in the wild. */
const LETTERS = [...'abcxyzABCXYZéñüßあいう受付漢字データабвгαβγ'];
const ID_MARKS = [...'-_./#?&+% :~'];
const DIGITS = [...'0123456789'];

const word = (alphabet: readonly string[], min: number, max: number) =>
  fc
    .array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max })
    .map((chars) => chars.join(''));

/** A word a product may use for a status: real ones of several products, or any letters. */
const STATUS_POOL = [
  ...['Wait', 'Queued', 'Pending', 'Running', 'Process', 'Finish', 'Done', 'Success'],
  ...['Error', 'Abort', 'Failed', 'Stop', 'Cancel', 'Stopped', 'WAITING', 'COMPLETED'],
  ...['待機中', '実行中', '正常終了', '異常終了', '取消', 'En attente', 'En cours', 'Terminé'],
  ...['Échec', 'Annulé', 'Ошибка', 'Готово'],
];
const statusWord = fc.oneof(
  fc.constantFrom(...STATUS_POOL),
  // Letters with an inner space now and then: a word need not be one token.
  fc
    .tuple(word(LETTERS, 1, 8), fc.option(word(LETTERS, 1, 6), { nil: undefined }))
    .map(([a, b]) => (b === undefined ? a : `${a} ${b}`)),
);

/** Five different words: waiting, running, done, failed, cancelled. */
const statuses = fc
  .uniqueArray(statusWord, { minLength: 5, maxLength: 5 })
  .map(([waiting, running, done, failed, cancelled]) => ({
    waiting: waiting as string,
    running: running as string,
    done: done as string,
    failed: failed as string,
    cancelled: cancelled as string,
  }));

/** A zone: any quarter hour from UTC−12 to UTC+14, and what its dates may call it. */
const zone = fc.integer({ min: -48, max: 56 }).chain((quarters) => {
  const offsetMinutes = quarters * 15;
  const sign = offsetMinutes < 0 ? '-' : '+';
  const hhmm = `${String(Math.trunc(Math.abs(offsetMinutes) / 60)).padStart(2, '0')}${String(Math.abs(offsetMinutes) % 60).padStart(2, '0')}`;
  return fc.record({
    offsetMinutes: fc.constant(offsetMinutes),
    abbreviation: fc.constantFrom(
      `UTC${sign}${hhmm.slice(0, 2)}:${hhmm.slice(2)}`,
      `${sign}${hhmm}`,
    ),
  });
});

/** One line of printable text, as a product's id may be: letters, digits and marks. */
const idText = fc
  .tuple(word(LETTERS, 1, 6), word([...LETTERS, ...ID_MARKS, ...DIGITS], 0, 10))
  .map(([head, rest]) => (head + rest).trim())
  .filter((id) => id !== '');

/** How a product numbers its requests: text around the day and serials, in some order. */
const requestIdForm = fc
  .record({
    prefix: word([...LETTERS, ...ID_MARKS], 0, 5),
    separator: fc.constantFrom('-', '_', '/', '#', ' ', '.', ':'),
    withPipeline: fc.boolean(),
    withDay: fc.boolean(),
    padding: fc.integer({ min: 0, max: 8 }),
    perPipeline: fc.boolean(),
    suffix: word([...LETTERS, ...ID_MARKS], 0, 4),
  })
  .map(
    (form) =>
      ({ pipelineId, day, hour, pipelineSerial, daySerial }: RequestIdParts) =>
        (
          [
            form.prefix,
            form.withPipeline ? pipelineId : '',
            form.withDay ? `${day}${form.separator}${hour}` : '',
            // A serial per pipeline is unique only beside the pipeline's id.
            String(form.perPipeline && form.withPipeline ? pipelineSerial : daySerial).padStart(
              form.padding,
              '0',
            ),
          ]
            .filter((part) => part !== '')
            .join(form.separator) + form.suffix
        ).trim(),
  );

/**
 * Ids of a product: interfaces.md's example shapes, or its own. Never with a space at
 * either end: XML readers trim values (fast-xml-parser by default), so no product that is
 * read through XML could use such an id.
 */
const ids: fc.Arbitrary<VendorIds> = fc
  .record({
    pipelines: fc.uniqueArray(idText, { minLength: 3, maxLength: 3 }),
    request: requestIdForm,
  })
  .map(({ pipelines, request }) => ({
    pipelines: pipelines as unknown as readonly [string, string, string],
    request,
  }));

const behaviour: fc.Arbitrary<Partial<VendorBehaviour>> = fc.record({
  pagesize: fc.oneof(
    fc.constantFrom('honoured' as const, 'ignored' as const),
    fc.integer({ min: 7, max: 1000 }).map((cap) => ({ cap })),
  ),
  capped: fc.constantFrom('every list' as const, 'requests' as const, 'tables' as const),
  index: fc.constantFrom(false, true, 'pages' as const),
  next: fc.constantFrom('always-1' as const, 'stated' as const, 'absent' as const),
  order: fc.constantFrom('newest' as const, 'oldest' as const),
  total: fc.boolean(),
  charset: fc.constantFrom('utf-8' as const, 'shift_jis' as const, 'euc-jp' as const),
  bom: fc.boolean(),
  language: fc.constantFrom('en' as const, 'ja' as const),
  dates: fc.constantFrom(
    'dash' as const,
    'slash' as const,
    'iso' as const,
    'millis' as const,
    'zoned' as const,
  ),
  concurrency: fc.constantFrom(0, 0, 2, 4),
  echoKey: fc.boolean(),
  sessionId: fc.boolean(),
  gzip: fc.boolean(),
  retryLog: fc.constantFrom('kept' as const, 'rewritten' as const),
  retryStart: fc.constantFrom('at-once' as const, 'queued' as const, 'new-request' as const),
  appLogLines: fc.integer({ min: 0, max: 40 }),
  failureLog: fc.constantFrom('closing' as const, 'app-log' as const, 'none' as const),
  runmodeWords: fc.constantFrom('spec' as const, 'upper' as const, 'own' as const),
});

const vendor = fc.record({
  zone,
  failures: fc.constantFrom('envelope' as const, 'http' as const),
  status: statuses,
  version: fc.constantFrom('5.2.1', '4.8.0-p3', 'v7', '2026.11'),
  idsOf: fc.oneof(fc.constant('spec' as const), ids),
  behaviour,
  requests: fc.record({
    done: fc.integer({ min: 0, max: 1400 }),
    failed: fc.integer({ min: 1, max: 60 }),
    waiting: fc.integer({ min: 0, max: 8 }),
  }),
  salesRows: fc.integer({ min: 0, max: 1200 }),
});

/** interfaces.md's example shapes, for a vendor that keeps them. */
const SPEC_IDS: VendorIds = {
  pipelines: ['pl_1', 'pl_2', 'pl_7'],
  request: ({ pipelineId, day, hour, pipelineSerial }) =>
    `${pipelineId}-${day}_${hour}-${String(pipelineSerial).padStart(6, '0')}`,
};

/**
 * Text as a product of this charset can hold it: a character its charset cannot write (é in
 * Shift_JIS) becomes x, as such a product could not have named anything with it.
 */
function writable(charset: VendorBehaviour['charset'] | undefined): (text: string) => string {
  if (charset === undefined || charset === 'utf-8') return (text) => text;
  return (text) =>
    [...text]
      .map((c) => (iconv.decode(iconv.encode(c, charset), charset) === c ? c : 'x'))
      .join('');
}

/** The vendor of a seed: the same one on every run and every machine. */
export function generatedVendor(seed: number): GeneratedVendor {
  const [drawn] = fc.sample(vendor, { seed, numRuns: 1 });
  if (!drawn) throw new Error(`fast-check drew no vendor for seed ${seed}`);
  const fit = writable(drawn.behaviour.charset);
  // Fitted to the charset, two words or ids may meet (éa, üa): the later ones take a number.
  const distinct = (texts: readonly string[]) =>
    texts.map(fit).map((text, i, all) => (all.indexOf(text) === i ? text : `${text}${i}`));
  const words = distinct(Object.values(drawn.status));
  const status = Object.fromEntries(
    Object.keys(drawn.status).map((meaning, i) => [meaning, words[i]]),
  ) as unknown as VendorVariant['status'];
  const own = drawn.idsOf === 'spec' ? SPEC_IDS : drawn.idsOf;
  const ids: VendorIds = {
    pipelines: distinct(own.pipelines) as unknown as VendorIds['pipelines'],
    request: (parts) => fit(own.request(parts)),
  };
  return {
    seed,
    variant: {
      name: `generated-${seed}`,
      zone: drawn.zone,
      failures: drawn.failures,
      status,
      version: drawn.version,
    },
    ids,
    behaviour: drawn.behaviour,
    requests: drawn.requests,
    salesRows: drawn.salesRows,
  };
}

/** What a seed's vendor is, in one line: for a failure's message. */
export function describeVendor(v: GeneratedVendor): string {
  return JSON.stringify({
    zone: v.variant.zone,
    failures: v.variant.failures,
    status: v.variant.status,
    pipelines: v.ids.pipelines,
    aRequestId: v.ids.request({
      pipelineId: v.ids.pipelines[0],
      day: '20261202',
      hour: '09',
      pipelineSerial: 1,
      daySerial: 1,
    }),
    behaviour: v.behaviour,
    requests: v.requests,
    salesRows: v.salesRows,
  });
}
