import { ParseError } from './errors.ts';
import type { TreeObject, TreeValue } from './tree.ts';

// Reading the fields of a Part C answer: the tree the XML, JSON and HTML readers produce
// (tree.ts, html.ts), for the decoders of records.ts, table-records.ts and request-stats.ts.
// Not the package's API (index.ts does not export them).

export function fail(what: string): never {
  throw new ParseError(`unexpected response: ${what}`, '');
}

export function object(value: TreeValue | undefined, what: string): TreeObject {
  if (value === null || value === undefined || typeof value !== 'object' || Array.isArray(value)) {
    // An empty element reads as '' in XML.
    if (value === '') return {};
    return fail(`${what} is not an element`);
  }
  return value;
}

export function list(value: TreeValue | undefined): TreeValue[] {
  if (value === undefined || value === '' || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

export function text(record: TreeObject, name: string): string {
  const value = record[name];
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return '';
  return String(value);
}

export function number(record: TreeObject, name: string): number {
  const value = record[name];
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
  return fail(`${name} is not a number`);
}

export function optionalNumber(record: TreeObject, name: string): number | undefined {
  return record[name] === undefined || record[name] === '' ? undefined : number(record, name);
}

/** The elements `name` under `parent`, none when it has none. */
export function elements(parent: TreeObject, name: string): TreeObject[] {
  return list(parent[name]).map((value) => object(value, name));
}

/**
 * Elements read alike, each into the field of its name with the first letter lower-cased:
 * `named(r, text, 'RequestId', 'Name')` is `{ requestId: text(r, 'RequestId'), name: … }`.
 */
export function named<N extends string, T>(
  record: TreeObject,
  read: (record: TreeObject, name: N) => T,
  ...names: N[]
): Record<Uncapitalize<N>, T> {
  const fields = names.map((name) => [
    name.charAt(0).toLowerCase() + name.slice(1),
    read(record, name),
  ]);
  return Object.fromEntries(fields) as Record<Uncapitalize<N>, T>;
}

export function rootOf(tree: TreeObject, root: string): TreeObject {
  if (!(root in tree)) fail(`expected ${root}, got ${Object.keys(tree).join(', ') || 'nothing'}`);
  return object(tree[root], root);
}

export interface PageInfo {
  readonly index: number;
  readonly prev: number;
  readonly next: number;
  readonly count: number;
  /** Total matching records (an extension of the embedded service; absent elsewhere). */
  readonly total: number | undefined;
  /**
   * The service time this answer is as of (yyyymmddhhmmss): send it back as `since` to read
   * only what changed after it. Our server's extension; absent elsewhere.
   */
  readonly asOf?: string;
}

export function decodePageInfo(value: TreeValue | undefined): PageInfo {
  const info = object(value, 'Info');
  return {
    ...named(info, number, 'Index', 'Prev', 'Next', 'Count'),
    total: optionalNumber(info, 'Total'),
    ...(text(info, 'AsOf') ? { asOf: text(info, 'AsOf') } : {}),
  };
}
