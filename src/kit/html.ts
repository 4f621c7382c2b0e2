import { XMLParser } from 'fast-xml-parser';
import { ParseError } from './errors.ts';
import { typedTree, type TreeObject, type TreeValue } from './tree.ts';

// The service's HTML form (contract section 2): one table per document, a header row of
// th cells and a row of td cells per record; scalars outside the records as data-*
// attributes of the table; a request's logs as further tables marked data-part.

const htmlParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  unpairedTags: ['meta', 'br', 'hr', 'img', 'input', 'link'],
  htmlEntities: true,
  processEntities: true,
  isArray: (name) => ['table', 'tr', 'th', 'td'].includes(name),
});

const RECORD_NAMES: Readonly<Record<string, string>> = {
  PipelineList: 'PipeLine',
  RequestList: 'Request',
  Result: 'Record',
};

/** data-* names are lower case; these restore the element names. */
const ELEMENT_NAMES = new Map(
  ['Index', 'Prev', 'Next', 'Count', 'Total', 'Error', 'Date', 'Id', 'Status'].map((n) => [
    n.toLowerCase(),
    n,
  ]),
);

type Cell = string | Record<string, unknown>;

function cellText(cell: Cell | undefined): string {
  if (cell === undefined) return '';
  if (typeof cell === 'string') return cell;
  const text = cell['#text'];
  return text === undefined ? '' : String(text);
}

function cellValue(cell: Cell | undefined): string | null {
  if (cell !== undefined && typeof cell === 'object' && cell['@_data-null'] === 'true') return null;
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

function recordsOf(rows: Row[]): TreeObject[] {
  const header = rows.find((r) => r.th)?.th?.map(cellText) ?? [];
  return rows
    .filter((r) => r.td)
    .map((r) => {
      const record: Record<string, unknown> = {};
      header.forEach((name, i) => {
        const value = cellValue(r.td?.[i]);
        record[name] = value === null ? { '@_isnull': 'true' } : value;
      });
      return typedTree('', record) as TreeObject;
    });
}

/** Decodes a Part C HTML body into the JSON shape. */
export function htmlToTree(text: string): TreeObject {
  const doc = htmlParser.parse(text) as Record<string, unknown>;
  const html = doc.html as Record<string, unknown> | undefined;
  const body = html?.body as Record<string, unknown> | undefined;
  const tables = (body?.table as Record<string, unknown>[] | undefined) ?? [];
  const main = tables.find((t) => typeof t['@_data-root'] === 'string');
  if (!main) throw new ParseError('HTML response has no table with data-root', text);
  const root = main['@_data-root'] as string;
  const rows = rowsOf(main);
  const out: Record<string, TreeValue> = {};
  const recordName = RECORD_NAMES[root];
  if (recordName === 'Record') {
    const header = rows.find((r) => r.th)?.th ?? [];
    const typedHeader = header.some((c) => typeof c === 'object' && c['@_data-type'] !== undefined);
    out.Header = {
      Item: header.map((c) =>
        typedHeader && typeof c === 'object'
          ? {
              Name: cellText(c),
              Type: String(c['@_data-type'] ?? ''),
              Key: String(c['@_data-key'] ?? ''),
            }
          : cellText(c),
      ),
    };
    out.Record = rows.filter((r) => r.td).map((r) => ({ Item: (r.td ?? []).map(cellValue) }));
  } else if (recordName) {
    out[recordName] = recordsOf(rows);
  } else {
    Object.assign(out, recordsOf(rows)[0] ?? {});
    for (const table of tables) {
      const part = table['@_data-part'];
      if (typeof part === 'string') out[part] = { Log: recordsOf(rowsOf(table)) };
    }
  }
  const info: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(main)) {
    if (!key.startsWith('@_data-') || key === '@_data-root') continue;
    const name = key.slice('@_data-'.length);
    if (name.startsWith('info-')) {
      const element = ELEMENT_NAMES.get(name.slice(5));
      if (element) info[element] = value;
    } else {
      const element = ELEMENT_NAMES.get(name);
      if (element) out[element] = typedTree(element, value);
    }
  }
  if (Object.keys(info).length > 0) out.Info = typedTree('Info', info);
  return { [root]: out };
}
