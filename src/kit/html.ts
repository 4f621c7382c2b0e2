import { XMLParser } from 'fast-xml-parser';
import { ParseError } from './errors.ts';
import { typedAnswer, type TreeObject } from './tree.ts';
import { HTML_ATTRIBUTES, elementPathOfAttribute, elementSpec, rootSpec } from './vocabulary.ts';

// The service's HTML form (contract section 2): one table per document, a header row of
// th cells and a row of td cells per record; scalars outside the records as data-*
// attributes of the table; a request's logs as further tables marked data-part. Which
// element is the record, the header and a part comes from the vocabulary (ROOTS).
// A vendor's HTML carries none of these marks: interfaces.md describes it for `list` alone
// (one tr per pipeline, td cells in a fixed order), which is read as described; another
// API's HTML form is not shown, so nothing is invented for it.

const htmlParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  unpairedTags: ['meta', 'br', 'hr', 'img', 'input', 'link'],
  // HTML's tag names are not case-sensitive: a vendor's <TABLE> is a table.
  transformTagName: (name) => name.toLowerCase(),
  htmlEntities: true,
  processEntities: true,
  isArray: (name) => ['table', 'tr', 'th', 'td'].includes(name),
});

const attr = (name: string) => `@_${name}`;
/** A NULL cell, marked as the XML reader marks `isnull`, for typedAnswer to turn into null. */
const NULL_CELL = { '@_isnull': 'true' } as const;

type Cell = string | Record<string, unknown>;

function cellText(cell: Cell | undefined): string {
  if (cell === undefined) return '';
  if (typeof cell === 'string') return cell;
  const text = cell['#text'];
  return text === undefined ? '' : String(text);
}

function cellValue(cell: Cell | undefined): Cell {
  if (typeof cell === 'object' && cell[attr(HTML_ATTRIBUTES.null)] === 'true') return NULL_CELL;
  return cellText(cell);
}

interface Row {
  th?: Cell[];
  td?: Cell[];
}

function rowsOf(table: Record<string, unknown>): Row[] {
  const direct = (table.tr as Row[] | undefined) ?? [];
  const bodies = ['thead', 'tbody'].flatMap((k) => {
    const part = table[k] as Record<string, unknown> | undefined;
    return (part?.tr as Row[] | undefined) ?? [];
  });
  return [...direct, ...bodies];
}

/** Records of a table: the header row names each cell. */
function recordsOf(rows: Row[]): Record<string, Cell>[] {
  const header = rows.find((r) => r.th)?.th?.map(cellText) ?? [];
  return rows
    .filter((r) => r.td)
    .map((r) => {
      const record: Record<string, Cell> = {};
      header.forEach((name, i) => {
        record[name] = cellValue(r.td?.[i]);
      });
      return record;
    });
}

/**
 * Records of a part whose records hold records of their own (RequestStats' Pipeline and
 * its Counts): header cells marked `data-inner` are the inner records' columns; a row
 * whose cells carry `rowspan` starts a record, the rows after it add inner records.
 */
function nestedRecordsOf(rows: Row[]): Record<string, unknown>[] {
  const header = rows.find((r) => r.th)?.th ?? [];
  const innerOf = (c: Cell) => (typeof c === 'object' ? c[attr(HTML_ATTRIBUTES.inner)] : undefined);
  const own = header.filter((c) => innerOf(c) === undefined).map(cellText);
  const innerCells = header.filter((c) => innerOf(c) !== undefined);
  const inner = innerCells[0] === undefined ? undefined : String(innerOf(innerCells[0]));
  const innerNames = innerCells.map(cellText);
  const out: Record<string, unknown>[] = [];
  const innerRecord = (cells: readonly Cell[]) => {
    const record: Record<string, Cell> = {};
    innerNames.forEach((name, i) => {
      record[name] = cellValue(cells[i]);
    });
    return record;
  };
  for (const row of rows) {
    const cells = row.td;
    if (cells === undefined) continue;
    const first = cells[0];
    const starts = typeof first === 'object' && first[attr('rowspan')] !== undefined;
    if (starts || inner === undefined || out.length === 0) {
      const record: Record<string, unknown> = {};
      own.forEach((name, i) => {
        record[name] = cellValue(cells[i]);
      });
      if (inner !== undefined) {
        record[inner] = cells.length > own.length ? [innerRecord(cells.slice(own.length))] : [];
      }
      out.push(record);
    } else if (inner !== undefined) {
      (out[out.length - 1]?.[inner] as Record<string, Cell>[]).push(innerRecord(cells));
    }
  }
  return out;
}

/** A header row of columns (`th` with data-type) or of plain names (a table list). */
function headerItems(rows: Row[]): Cell[] {
  const header = rows.find((r) => r.th)?.th ?? [];
  const columns = header.some(
    (c) => typeof c === 'object' && c[attr(HTML_ATTRIBUTES.type)] !== undefined,
  );
  return header.map((c) =>
    columns && typeof c === 'object'
      ? {
          Name: cellText(c),
          Type: String(c[attr(HTML_ATTRIBUTES.type)] ?? ''),
          Key: String(c[attr(HTML_ATTRIBUTES.key)] ?? ''),
        }
      : cellText(c),
  );
}

/** Leaves beside the records, from the table's data-* attributes (Status, Info's Index). */
function attributeLeaves(table: Record<string, unknown>, into: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(table)) {
    if (!key.startsWith('@_')) continue;
    const path = elementPathOfAttribute(key.slice(2));
    if (path === undefined || path.length === 0 || path.length > 2) continue;
    const [outer, inner] = path as [string, string | undefined];
    if (inner === undefined) {
      into[outer] = value;
    } else {
      const group = (into[outer] ??= {}) as Record<string, unknown>;
      group[inner] = value;
    }
  }
}

/** interfaces.md's HTML of `list`: one tr per pipeline, its td cells in this order. */
const LIST_CELLS = ['Id', 'Name', 'Runmode', 'Createdate', 'Updatedate', 'Description'] as const;

/** All the text inside an element, its children's included (a cell's link, say), blanks collapsed. */
function textWithin(node: unknown): string {
  if (typeof node === 'string') return node;
  if (Array.isArray(node)) return node.map(textWithin).join(' ');
  if (node === null || typeof node !== 'object') return node === undefined ? '' : String(node);
  return Object.entries(node)
    .filter(([key]) => !key.startsWith('@_'))
    .map(([, value]) => textWithin(value))
    .join(' ');
}

/** The tables of a document wherever they are (a vendor's page may wrap them in a div). */
function tablesWithin(node: unknown): Record<string, unknown>[] {
  if (Array.isArray(node)) return node.flatMap(tablesWithin);
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === 'table' ? (value as Record<string, unknown>[]) : tablesWithin(value),
  );
}

/**
 * A vendor's `list` as interfaces.md describes it. A header row (th cells, or td cells that
 * are the column names) is passed over; missing cells read as empty, extra ones are left.
 */
function vendorList(tables: readonly Record<string, unknown>[]): TreeObject {
  const header = LIST_CELLS.join('\n').toLowerCase();
  const records = tables.flatMap((table) =>
    rowsOf(table)
      .map((row) => (row.td ?? []).map((cell) => textWithin(cell).replace(/\s+/g, ' ').trim()))
      .filter((cells) => cells.length > 0 && cells.join('\n').toLowerCase() !== header)
      .map((cells) => Object.fromEntries(LIST_CELLS.map((name, i) => [name, cells[i] ?? '']))),
  );
  return typedAnswer({ PipelineList: { PipeLine: records } });
}

/**
 * Decodes a Part C HTML body into the JSON shape: ours by its marks; a vendor's by what
 * interfaces.md says of `api`'s HTML (`list` alone is described).
 */
export function htmlToTree(text: string, api?: string): TreeObject {
  const doc = htmlParser.parse(text) as Record<string, unknown>;
  const html = doc.html as Record<string, unknown> | undefined;
  const body = html?.body as Record<string, unknown> | undefined;
  const tables = (body?.table as Record<string, unknown>[] | undefined) ?? [];
  const main = tables.find((t) => typeof t[attr(HTML_ATTRIBUTES.root)] === 'string');
  if (!main && api === 'list') return vendorList(tablesWithin(doc));
  if (!main)
    throw new ParseError(
      `HTML response has no table with ${HTML_ATTRIBUTES.root}${api ? `, and interfaces.md does not show the HTML form of ${api}: ask for xml or json` : ''}`,
      text,
    );
  const root = main[attr(HTML_ATTRIBUTES.root)] as string;
  const spec = rootSpec(root);
  const rows = rowsOf(main);
  const out: Record<string, unknown> = {};
  if (spec?.record !== undefined) {
    if (spec.header !== undefined) {
      out[spec.header] = { [elementSpec(spec.header)?.holds ?? 'Item']: headerItems(rows) };
      // A row's cells are the repeated child of its record (Items), in header order.
      const cells = elementSpec(spec.record)?.holds ?? 'Item';
      out[spec.record] = rows
        .filter((r) => r.td)
        .map((r) => ({ [cells]: (r.td ?? []).map(cellValue) }));
    } else {
      out[spec.record] = recordsOf(rows);
    }
  } else {
    Object.assign(out, recordsOf(rows)[0] ?? {});
    const parts: readonly string[] = spec?.parts ?? [];
    for (const table of tables) {
      const part = table[attr(HTML_ATTRIBUTES.part)];
      if (typeof part !== 'string' || !parts.includes(part)) continue;
      const partSpec = elementSpec(part, root);
      out[part] = partSpec?.repeated
        ? nestedRecordsOf(rowsOf(table))
        : { [partSpec?.holds ?? 'Log']: recordsOf(rowsOf(table)) };
    }
  }
  attributeLeaves(main, out);
  return typedAnswer({ [root]: out });
}
