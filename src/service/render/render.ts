import type { ResponseType } from '../../kit/wire.ts';
import { HTML_ATTRIBUTES, elementSpec, htmlAttributeName, rootSpec } from '../../kit/vocabulary.ts';
import { CData, isLeaf, type Document, type Leaf, type Node, type Tree } from './document.ts';

// One renderer for the three formats: handlers build a Document once and every format is
// derived from it here, so XML, JSON and HTML cannot disagree. The HTML layout (which
// element is the record, the header, a part; the data-* names) comes from the kit's wire
// vocabulary, which the kit's HTML reader follows too.

// XML 1.0 cannot carry most C0 controls, lone surrogates or U+FFFE/U+FFFF, not even as
// character references; they are replaced so that every document stays well-formed.
/* eslint-disable no-control-regex -- matching control characters is the point here */
const XML_INVALID =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const XML_SPECIAL = /[&<>\r]/g;
const XML_NEEDS_WORK = /[&<>\r\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;
/* eslint-enable no-control-regex */
const XML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '\r': '&#13;',
};

export function escapeXml(text: string): string {
  if (!XML_NEEDS_WORK.test(text)) return text;
  return text.replace(XML_INVALID, '\uFFFD').replace(XML_SPECIAL, (c) => XML_ENTITIES[c] ?? c);
}

function cdata(text: string): string {
  // `]]>` would end the section early; it is split across two sections instead.
  const clean = XML_NEEDS_WORK.test(text) ? text.replace(XML_INVALID, '\uFFFD') : text;
  return `<![CDATA[${clean.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;
}

function xmlLeaf(name: string, value: Leaf): string {
  if (value === null) return `<${name} isnull="true"/>`;
  if (value instanceof CData) return `<${name}>${cdata(value.text)}</${name}>`;
  const text = typeof value === 'string' ? escapeXml(value) : String(value);
  return `<${name}>${text}</${name}>`;
}

function xmlNode(name: string, node: Node): string {
  if (isLeaf(node)) return xmlLeaf(name, node);
  if (Array.isArray(node)) {
    let out = '';
    for (const item of node as readonly (Leaf | Tree)[]) out += xmlNode(name, item);
    return out;
  }
  return `<${name}>${xmlChildren(node as Tree)}</${name}>`;
}

function xmlChildren(tree: Tree): string {
  let out = '';
  for (const name in tree) {
    const child = tree[name];
    if (child !== undefined) out += xmlNode(name, child);
  }
  return out;
}

export function renderXml(doc: Document): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${xmlNode(doc.root, doc.body)}`;
}

export function renderJson(doc: Document): string {
  return JSON.stringify({ [doc.root]: doc.body });
}

const HTML_SPECIAL = /[&<>"']/g;
const HTML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(HTML_SPECIAL, (c) => HTML_ENTITIES[c] ?? c);
}

function leafText(value: Leaf): string {
  if (value === null) return '';
  if (value instanceof CData) return value.text;
  return String(value);
}

function td(value: Leaf): string {
  return value === null
    ? `<td ${HTML_ATTRIBUTES.null}="true"></td>`
    : `<td>${escapeHtml(leafText(value))}</td>`;
}

/** True when the HTML form carries this element (the vocabulary may say it does not). */
function inHtml(name: string): boolean {
  return elementSpec(name)?.html !== 'omitted';
}

/** Leaves directly under a tree, plus those one level down (Info), as data attributes. */
function dataAttributes(entries: [string, Node][]): string {
  let out = '';
  for (const [name, node] of entries) {
    if (isLeaf(node)) {
      out += ` ${htmlAttributeName(name)}="${escapeHtml(leafText(node))}"`;
    } else if (!Array.isArray(node)) {
      for (const [inner, value] of Object.entries(node as Tree)) {
        if (value !== undefined && isLeaf(value)) {
          out += ` ${htmlAttributeName(name, inner)}="${escapeHtml(leafText(value))}"`;
        }
      }
    }
  }
  return out;
}

function leafEntries(tree: Tree): [string, Leaf][] {
  const out: [string, Leaf][] = [];
  for (const [name, value] of Object.entries(tree)) {
    if (value !== undefined && isLeaf(value)) out.push([name, value]);
  }
  return out;
}

/** Cells of one record: its leaf fields, or the leaves of its single repeated child. */
function recordCells(record: Tree): Leaf[] {
  const entries = Object.values(record).filter((v) => v !== undefined);
  const only = entries[0];
  if (entries.length === 1 && Array.isArray(only)) return only as Leaf[];
  return leafEntries(record).map(([, v]) => v);
}

function headerRow(header: Node | undefined, records: readonly Tree[]): string {
  if (header !== undefined && !isLeaf(header) && !Array.isArray(header)) {
    const items = (header as Tree).Item;
    if (Array.isArray(items)) {
      let row = '';
      for (const item of items as readonly (Leaf | Tree)[]) {
        if (isLeaf(item)) {
          row += `<th>${escapeHtml(leafText(item))}</th>`;
        } else {
          const column = item as Tree;
          row +=
            `<th ${HTML_ATTRIBUTES.type}="${escapeHtml(leafText((column.Type as Leaf) ?? ''))}"` +
            ` ${HTML_ATTRIBUTES.key}="${escapeHtml(leafText((column.Key as Leaf) ?? ''))}">` +
            `${escapeHtml(leafText((column.Name as Leaf) ?? ''))}</th>`;
        }
      }
      return `<tr>${row}</tr>`;
    }
  }
  const first = records[0];
  if (!first) return '';
  return `<tr>${leafEntries(first)
    .map(([name]) => `<th>${escapeHtml(name)}</th>`)
    .join('')}</tr>`;
}

function recordTable(
  attributes: string,
  header: Node | undefined,
  records: readonly Tree[],
): string {
  let rows = headerRow(header, records);
  for (const record of records) rows += `<tr>${recordCells(record).map(td).join('')}</tr>`;
  return `<table${attributes}>${rows}</table>`;
}

/**
 * The records of a part (contract section 2): a group's held records (a request's Log
 * list) or the root's own repeated element (RequestStats' Pipeline), with the name of the
 * inner records each of them holds, if any (a Pipeline's Count).
 */
function partRecords(
  root: string,
  name: string,
  node: Node | undefined,
): { records: readonly Tree[]; inner: string | undefined } {
  const spec = elementSpec(name, root);
  if (spec === undefined || node === undefined || isLeaf(node))
    return { records: [], inner: undefined };
  if (spec.repeated) {
    return { records: Array.isArray(node) ? (node as readonly Tree[]) : [], inner: spec.holds };
  }
  const held = spec.holds;
  if (held === undefined || Array.isArray(node)) return { records: [], inner: undefined };
  const records = (node as Tree)[held];
  return { records: Array.isArray(records) ? (records as readonly Tree[]) : [], inner: undefined };
}

function innerRecords(record: Tree, inner: string): readonly Tree[] {
  const value = record[inner];
  return Array.isArray(value) ? (value as readonly Tree[]) : [];
}

/**
 * A part whose records hold records of their own: one row per inner record, the record's
 * own cells spanning its rows (`rowspan`, on every record's first row, so that a record
 * without inner records reads apart from an inner row); inner columns marked in the header.
 */
function nestedTable(attributes: string, records: readonly Tree[], inner: string): string {
  const first = records[0];
  if (first === undefined) return `<table${attributes}></table>`;
  const own = leafEntries(first).map(([name]) => name);
  const innerNames = leafEntries(
    records.map((r) => innerRecords(r, inner)[0]).find((r) => r !== undefined) ?? {},
  ).map(([name]) => name);
  let rows = `<tr>${own.map((n) => `<th>${escapeHtml(n)}</th>`).join('')}${innerNames
    .map((n) => `<th ${HTML_ATTRIBUTES.inner}="${escapeHtml(inner)}">${escapeHtml(n)}</th>`)
    .join('')}</tr>`;
  const innerCells = (r: Tree) =>
    innerNames.map((n) => td((r[n] as Leaf | undefined) ?? null)).join('');
  for (const record of records) {
    const nested = innerRecords(record, inner);
    const span = Math.max(1, nested.length);
    const ownCells = own
      .map((n) => {
        const value = (record[n] as Leaf | undefined) ?? null;
        const nullMark = value === null ? ` ${HTML_ATTRIBUTES.null}="true"` : '';
        return `<td rowspan="${span}"${nullMark}>${escapeHtml(leafText(value))}</td>`;
      })
      .join('');
    rows += `<tr>${ownCells}${nested[0] ? innerCells(nested[0]) : ''}</tr>`;
    for (const more of nested.slice(1)) rows += `<tr>${innerCells(more)}</tr>`;
  }
  return `<table${attributes}>${rows}</table>`;
}

/**
 * HTML: a whole document holding a table, laid out as the vocabulary's ROOTS say. A root
 * with a record element gets one row per record under a header row of `th` cells; other
 * roots get one row of their leaves. Scalars outside the records (Info, Status) travel as
 * `data-*` attributes of the table so the kit can decode them; a root's parts (a request's
 * logs, a day's counts per pipeline and hour) follow as further tables marked `data-part`.
 */
export function renderHtml(doc: Document): string {
  const spec = rootSpec(doc.root);
  // A programming error, not a client's: the vocabulary test renders every answer.
  if (spec === undefined) throw new Error(`${doc.root} is not a root of the wire vocabulary`);
  const body = doc.body;
  const rootAttribute = ` ${HTML_ATTRIBUTES.root}="${escapeHtml(doc.root)}"`;
  let tables: string;
  if (spec.record !== undefined) {
    const recordName = spec.record;
    const records = (body[recordName] ?? []) as readonly Tree[];
    const others = Object.entries(body).filter(
      (e): e is [string, Node] =>
        e[0] !== recordName && e[0] !== spec.header && e[1] !== undefined && inHtml(e[0]),
    );
    tables = recordTable(
      `${rootAttribute}${dataAttributes(others)}`,
      spec.header === undefined ? undefined : body[spec.header],
      records,
    );
  } else {
    const leaves = leafEntries(body).filter(([name]) => inHtml(name));
    tables = `<table${rootAttribute}><tr>${leaves
      .map(([name]) => `<th>${escapeHtml(name)}</th>`)
      .join('')}</tr><tr>${leaves.map(([, v]) => td(v)).join('')}</tr></table>`;
    for (const part of spec.parts ?? []) {
      const node = body[part];
      if (node === undefined) continue;
      const attributes = ` ${HTML_ATTRIBUTES.part}="${escapeHtml(part)}"`;
      const { records, inner } = partRecords(doc.root, part, node);
      tables +=
        inner === undefined
          ? recordTable(attributes, undefined, records)
          : nestedTable(attributes, records, inner);
    }
  }
  return (
    `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">` +
    `<title>${escapeHtml(doc.root)}</title></head><body>${tables}</body></html>`
  );
}

export function render(doc: Document, type: ResponseType): string {
  switch (type) {
    case 'xml':
      return renderXml(doc);
    case 'json':
      return renderJson(doc);
    case 'htm':
      return renderHtml(doc);
  }
}
