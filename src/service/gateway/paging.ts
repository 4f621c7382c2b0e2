import type { CapabilitiesAnswer, OperationName, TreeObject, TreeValue } from '../../kit/index.ts';
import { elementOf, leafText } from '../../kit/index.ts';
import type { RecordStream } from './xml-stream.ts';

// How an upstream pages its lists is learnt, not assumed (contract section 12): interfaces.md
// shows `pagesize` on the database browsers and an Info of Index/Prev/Next/Count on lists,
// with "bounds of pagesize: not shown". Vendors differ: some answer a whole day whatever
// pagesize says, some cap it, some honour `index`, some state `Next` or `Total` and some
// say `Next` -1 whatever they left out. A probe at start and every hour asks which; every
// read of a list then decides from these facts whether an answer was whole.

/**
 * How an upstream pages, as learnt: whether an answer holds at most `pagesize` rows, whether
 * `index` skips rows, whether Info's Next tells the truth (-1 only at the end) and Total is
 * stated, the most rows it gave when seen cutting below what was asked, and when the probe
 * last ran (ISO) and why it failed if it did. The fields of the services list that tell it
 * (the kit's answer type), so that the two cannot drift.
 */
export type ListPaging = Pick<
  CapabilitiesAnswer,
  | 'pagesize'
  | 'index'
  | 'next'
  | 'total'
  | 'cap'
  | 'probedAt'
  | 'probeError'
  | 'probeErrorCode'
  | 'probeErrorCause'
>;

export const UNPROBED: ListPaging = {
  pagesize: 'unknown',
  index: 'unknown',
  next: 'unknown',
  total: 'unknown',
  cap: null,
  probedAt: null,
  probeError: null,
  probeErrorCode: null,
  probeErrorCause: null,
};

/**
 * What one list's own answers showed of its paging (issue 37, item 2): a cap, how it takes
 * `index` and `pagesize`, each with the answer that showed it. A list is an operation and
 * what chooses its rows (a table, a pipeline), not a day: a day's requests page as the next
 * day's will. A fact of one list is never applied to another: a product may cap a table it
 * keeps large and not a day's list, and one short table says nothing of the next.
 */
export interface ListFacts {
  readonly cap?: number | null;
  readonly index?: 'honoured' | 'pages' | 'ignored';
  readonly pagesize?: 'ignored';
}

/** A list's facts as kept: with when and from what answer they were learnt. */
export interface LearntList extends ListFacts {
  readonly list: string;
  readonly learnedAt: string;
  readonly evidence: string;
}

/** The list an answer belongs to: its operation, and its table or pipeline when it has one. */
export function listKey(
  operation: OperationName,
  fields: Readonly<Record<string, string | undefined>>,
): string {
  const chosen = ['tablename', 'id']
    .filter((name) => fields[name] !== undefined && fields[name] !== '')
    .map((name) => `${name}=${fields[name] ?? ''}`);
  return [operation, ...chosen].join(' ');
}

/** The list of a day's requests (of every pipeline). */
export const DAY_LIST = listKey('requestlist', {});

/**
 * What paging asks of an upstream: its calls, and what it learnt of how it pages, for the
 * service (the probe of its day's list) and per list (`pagingOf`: the service's facts with
 * the list's own over them). Upstream (upstream.ts) is one; it imports this file (UNPROBED),
 * so this file names what it needs instead of importing it back.
 */
export interface PagedUpstream {
  readonly paging: ListPaging;
  learnPaging(facts: Partial<ListPaging>): void;
  /** How `list` pages: what its own answers showed, else what the probe showed; its cap only its own. */
  pagingOf(list: string): ListPaging;
  /** What an answer of `list` showed, and which answer (said in a few words). */
  learnList(list: string, facts: ListFacts, evidence: string): void;
  /** The caps other lists showed, each with its list: a product's page limit is often one. */
  capsSeen(list: string): readonly { readonly list: string; readonly cap: number }[];
  call(
    operation: OperationName,
    fields: Readonly<Record<string, string | undefined>>,
    records?: RecordStream,
  ): Promise<TreeObject>;
}

/** Rows asked of an upstream per answer at first; more while it keeps giving as many. */
export const FIRST_PAGE = 1000;

export const PROBE_EVERY_MS = 60 * 60_000;

function integer(value: TreeValue | undefined): number | undefined {
  const t = leafText(value);
  return /^-?\d+$/.test(t) ? Number(t) : undefined;
}

/** What one answer's Info states of paging. */
function infoOf(tree: TreeObject, root: string) {
  const info = elementOf(elementOf(tree[root]).Info);
  return { next: integer(info.Next), total: integer(info.Total), hasNext: 'Next' in info };
}

/** Thrown from a record handler to stop reading an answer that has told enough. */
class EnoughRead extends Error {}

/**
 * Asks today's requestlist three small questions: with pagesize 1 (is it honoured; does Next
 * say more; is Total stated), with pagesize 2 when Next said -1 (was that true), and with
 * index 1 (is index a row, a page, or ignored). A day of fewer than two requests leaves most
 * unknown, and one of two whether index numbers pages; readAll learns what is left.
 */
export async function probePaging(upstream: PagedUpstream, now: Date): Promise<ListPaging> {
  const ask = async (fields: Record<string, string>) => {
    const ids: string[] = [];
    let tree: TreeObject = {};
    try {
      tree = await upstream.call('requestlist', fields, {
        parent: 'RequestList',
        child: 'Request',
        onRecord: (r) => {
          ids.push(typeof r.RequestId === 'string' ? r.RequestId : '');
          // More than asked already tells: the rest of a whole day need not be read.
          if (ids.length > Number(fields.pagesize) + 1) throw new EnoughRead();
        },
      });
    } catch (error) {
      if (!(error instanceof EnoughRead)) throw error;
      return { ids, cut: true, ...infoOf(tree, 'RequestList') };
    }
    return { ids, cut: false, ...infoOf(tree, 'RequestList') };
  };
  const before = upstream.paging;
  const one = await ask({ pagesize: '1' });
  // An answer cut short (a whole day: more than asked) never reached its Info.
  const total = one.cut ? before.total : one.total !== undefined ? 'stated' : 'absent';
  // A cap is learnt again from the reads after each probe: the day that showed it may have been one of exactly that many.
  const facts = {
    ...before,
    total,
    cap: null,
    probedAt: now.toISOString(),
    probeError: null,
    probeErrorCode: null,
    probeErrorCause: null,
  } as const;
  if (one.ids.length > 1) return { ...facts, pagesize: 'ignored' };
  if (one.ids.length === 0) return { ...facts, next: one.hasNext ? before.next : 'absent' };
  let next: ListPaging['next'] = !one.hasNext ? 'absent' : one.next === -1 ? 'unknown' : 'stated';
  let two: Awaited<ReturnType<typeof ask>> | undefined;
  if (one.hasNext && one.next === -1) {
    two = await ask({ pagesize: '2' });
    next = two.ids.length > 1 ? 'always -1' : 'unknown';
  }
  // Whether index is honoured needs a day of two requests at least: asked when not told.
  two ??= one.next === 1 || (one.total ?? 0) > 1 ? undefined : await ask({ pagesize: '2' });
  const known = (two?.ids.length ?? 0) > 1 || one.next === 1 || (one.total ?? 0) > 1;
  if (!known) return { ...facts, pagesize: 'honoured', next };
  // Two rows from index 1: the second and third by rows, the third and fourth by pages of
  // two, the first two again when ignored. Nothing (a day of two, by pages) tells nothing.
  const head = two ?? (await ask({ pagesize: '2' }));
  const second = await ask({ pagesize: '2', index: '1' });
  const from = second.ids[0];
  const index =
    from === undefined
      ? before.index
      : from === head.ids[1]
        ? 'honoured'
        : from === head.ids[0]
          ? 'ignored'
          : 'pages';
  return { ...facts, pagesize: 'honoured', next, index };
}

/** The records of a list answer: where they stand, what each becomes, and what tells them apart. */
export interface RecordShape<T> {
  readonly root: string;
  readonly record: string;
  readonly map: (record: Readonly<Record<string, unknown>>) => T;
  /** Tells rows apart, to see an `index` that was ignored (a page of rows already read). */
  readonly key: (item: T) => string;
  /**
   * A row read again is left out (a day's requests: new ones at the head shift the next
   * page by as many). Table rows may repeat in their own right: they are kept.
   */
  readonly dedupe?: boolean;
}

/** Whether the upstream has a row not yet read at `index` (one row asked). */
async function rowAfter<T>(
  upstream: PagedUpstream,
  operation: OperationName,
  fields: Readonly<Record<string, string | undefined>>,
  shape: RecordShape<T>,
  index: number,
  keys: ReadonlySet<string>,
): Promise<boolean> {
  let fresh = false;
  await upstream.call(
    operation,
    { ...fields, pagesize: '1', index: String(index) },
    {
      parent: shape.root,
      child: shape.record,
      onRecord: (record) => {
        if (!keys.has(shape.key(shape.map(record)))) fresh = true;
      },
    },
  );
  return fresh;
}

/**
 * How many records the upstream answers now to the first page of `size`: asked again when
 * a row turned up past a short answer, to tell a cap it keeps quiet about (the same count
 * again) from rows added while it was read (more than before).
 */
async function firstPageCount(
  upstream: PagedUpstream,
  operation: OperationName,
  fields: Readonly<Record<string, string | undefined>>,
  shape: Pick<RecordShape<unknown>, 'root' | 'record'>,
  size: number,
): Promise<number> {
  let count = 0;
  await upstream.call(
    operation,
    { ...fields, pagesize: String(size) },
    { parent: shape.root, child: shape.record, onRecord: () => void count++ },
  );
  return count;
}

/** Reads started again because the upstream's list grew while it was read, at most. */
const GROWN_RESTARTS = 3;

export interface ReadAllResult<T> {
  readonly items: T[];
  /** Every row the upstream has: false when the bound was reached or it could not be paged. */
  readonly whole: boolean;
  /** The tree of the last answer, without its records. */
  readonly tree: TreeObject;
}

/**
 * Every record of a list (a day's requests, a table's rows) up to `bound`, read as the
 * upstream pages: one answer when it ignores pagesize or stops short; `index` pages while it
 * honours index; else larger answers, four times as large each time, while it keeps giving
 * as many as asked. Records are handed over as they are read, never as one tree.
 */
export async function readAll<T>(
  upstream: PagedUpstream,
  operation: OperationName,
  fields: Readonly<Record<string, string | undefined>>,
  shape: RecordShape<T>,
  bound: number,
): Promise<ReadAllResult<T>> {
  const list = listKey(operation, fields);
  const learn = (facts: ListFacts, evidence: string) => upstream.learnList(list, facts, evidence);
  // As many as at first even where a cap is known: an answer past the cap shows it wrong.
  let size = Math.min(bound, FIRST_PAGE);
  /** The size of the last answer that was full, before a larger one was asked. */
  let lastFull: number | undefined;
  let restarts = 0;
  for (;;) {
    const items: T[] = [];
    const keys = new Set<string>();
    /** Rows of the list read so far: where the next answer starts. */
    let index = 0;
    /** Answers read so far: the next one's number, to an upstream that numbers pages. */
    let answers = 0;
    let tree: TreeObject = {};
    let whole: boolean | undefined;
    let again = false;
    while (whole === undefined) {
      const pages = upstream.pagingOf(list).index === 'pages';
      // By rows, each answer after the first starts one row early, at a row already read: an
      // upstream that answers with a row not read there does not count rows (it numbers
      // pages, whatever the probe could tell from a small day), and the rows it skipped are
      // not taken for the end of the list.
      const overlap = !pages && index >= 2 ? 1 : 0;
      const asked = pages ? answers : index - overlap;
      let count = 0;
      let repeated = 0;
      /** Whether the answer's first row was one read before. */
      let firstRead = false;
      tree = await upstream.call(
        operation,
        { ...fields, pagesize: String(size), ...(asked > 0 ? { index: String(asked) } : {}) },
        {
          parent: shape.root,
          child: shape.record,
          onRecord: (record) => {
            count++;
            const item = shape.map(record);
            const key = shape.key(item);
            if (count === 1) firstRead = keys.has(key);
            if (keys.has(key)) {
              repeated++;
              if (shape.dedupe || count <= overlap) return;
            } else keys.add(key);
            if (items.length < bound) items.push(item);
          },
        },
      );
      answers++;
      if (asked > 0 && count > overlap && repeated === count) {
        // Nothing but rows already read: index is not honoured.
        learn({ index: 'ignored' }, `index ${asked} answered only rows already read`);
        if (!shape.dedupe) items.splice(index);
        break;
      }
      // Not the row before (rows), or mostly rows read before (pages): `index` numbers
      // something else than was taken. Read again from the start the other way.
      const otherWay = pages
        ? asked > 0 && repeated * 2 > count
        : overlap > 0 && (count === 0 || !firstRead);
      if (otherWay) {
        learn(
          { index: pages ? 'honoured' : 'pages' },
          pages
            ? `index ${asked} as a page number answered mostly rows already read`
            : `index ${asked} as a row answered a row not read before it`,
        );
        if (restarts++ < GROWN_RESTARTS) {
          again = true;
          break;
        }
        return { items, whole: false, tree };
      }
      if (asked > 0 && repeated < count && !pages && upstream.pagingOf(list).index !== 'honoured')
        learn({ index: 'honoured' }, `index ${asked} answered the rows after those read`);
      const stated = infoOf(tree, shape.root);
      const known = upstream.pagingOf(list).cap;
      if (known !== null && count > known && restarts < GROWN_RESTARTS) {
        // More rows than the cap it was thought to keep: the fact is wrong, and so may be
        // this read's end. Forgotten, and read again from the start.
        learn({ cap: null }, `answered ${count} rows, more than the cap of ${known} thought`);
        restarts++;
        again = true;
        size = Math.min(bound, FIRST_PAGE);
        lastFull = undefined;
        break;
      }
      if (count > size) {
        learn({ pagesize: 'ignored' }, `pagesize ${size} answered ${count} rows`);
        whole = count <= bound;
        break;
      }
      if (lastFull !== undefined && index === 0 && count === lastFull && count < size) {
        // Asked for more, given exactly as many as before: a cap it does not state (or a
        // day of exactly that many; which, nothing it said can tell).
        learn({ cap: count }, `pagesize ${lastFull} and ${size} both answered ${count} rows`);
        return { items, whole: false, tree };
      }
      const start = index - overlap;
      const paging = upstream.pagingOf(list);
      // A Next past the answer says there is more, whatever the probe has learnt yet; a
      // Next of -1 is believed only of an upstream seen telling the truth with it. Next
      // and the answer's place are counted in pages where the upstream numbers pages.
      let more =
        stated.total !== undefined
          ? start + count < stated.total
          : stated.next !== undefined && stated.next > (pages ? answers - 1 : start)
            ? true
            : paging.next === 'stated' && stated.next === -1
              ? false
              : count < Math.min(size, paging.cap ?? size)
                ? false
                : undefined;
      let rowPast = false;
      if (more === false && stated.total === undefined && paging.next !== 'stated' && count > 0)
        // Short, and nothing stated: a cap it keeps quiet about looks the same. Unless index
        // is known to be ignored, one row past the answer tells (one row to a page: rows
        // and pages are one).
        if (paging.index !== 'ignored') {
          more = await rowAfter(upstream, operation, fields, shape, start + count, keys);
          rowPast = more;
        } else {
          // Nor can a row past it be asked. Exactly the cap another list showed (a pipeline's
          // requests or a table, cut where the day's were) is taken for that cap: evidence
          // enough to doubt, never to take for the whole list. Fewer rows are whole: a cap
          // of one list never stops the read of another.
          const near = upstream.capsSeen(list).find((c) => c.cap === count);
          if (near && index === 0) {
            learn({ cap: count }, `answered ${count} rows, the cap ${near.list} showed`);
            return { items, whole: false, tree };
          }
        }
      if (more === false) whole = true;
      else {
        if (more === true && count < size && index === 0) {
          // A row past a short answer is a quiet cap, or a row added since the answer (a
          // day's list grows while it is read; an upstream that ignores index then shows
          // its newest). Asked again, a list that grew answers more: read again from the
          // start, learning nothing. A cap answers the same count.
          if (
            rowPast &&
            restarts < GROWN_RESTARTS &&
            (await firstPageCount(upstream, operation, fields, shape, size)) > count
          ) {
            restarts++;
            again = true;
            break;
          }
          learn(
            { cap: count },
            `pagesize ${size} answered ${count} rows, and a row past them${rowPast ? ' (the same count when asked again)' : ' was stated'}`,
          );
        }
        if (items.length >= bound) whole = false;
        else if (paging.index !== 'ignored' && count > overlap) index = start + count;
        else break;
      }
    }
    if (again) continue;
    if (whole !== undefined) return { items, whole, tree };
    // Neither pages nor a short answer: ask for more at once, up to the bound.
    const cap = upstream.pagingOf(list).cap;
    if (size >= bound || (cap !== null && size >= cap)) return { items, whole: false, tree };
    lastFull = size;
    size = Math.min(bound, size * 4);
  }
}
