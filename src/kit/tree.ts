import { XMLParser } from 'fast-xml-parser';
import { REPEATED_ELEMENTS } from './wire.ts';

/** A response in the JSON shape of contract section 2, whatever format it came in. */
export type TreeValue = string | number | boolean | null | TreeObject | TreeValue[];
export interface TreeObject {
  [name: string]: TreeValue;
}

const NUMBER_ELEMENTS = new Set([
  'Index',
  'Prev',
  'Next',
  'Count',
  'Total',
  'RowCount',
  'ActionOrder',
  'Code',
]);
const BOOLEAN_ELEMENTS = new Set(['Error']);
const repeated = new Set<string>(REPEATED_ELEMENTS);

const xmlParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  // Values stay text; the JSON typing is applied by name below, as the contract defines it.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  cdataPropName: false,
  processEntities: true,
  isArray: (name) => repeated.has(name),
});

/** Applies the contract's JSON typing to a tree read from XML or HTML text. */
function typed(name: string, value: unknown): TreeValue {
  if (Array.isArray(value)) return value.map((v) => typed(name, v));
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if (record['@_isnull'] === 'true') return null;
    const out: TreeObject = {};
    for (const [key, child] of Object.entries(record)) {
      if (key.startsWith('@_') || key === '#text') continue;
      out[key] = typed(key, child);
    }
    // An element with attributes and text keeps its text under #text.
    if ('#text' in record && Object.keys(out).length === 0) return typed(name, record['#text']);
    return out;
  }
  const text = value === undefined || value === null ? '' : String(value);
  if (NUMBER_ELEMENTS.has(name) && /^-?\d+$/.test(text)) return Number(text);
  if (BOOLEAN_ELEMENTS.has(name) && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/** Parses a Part C XML body into the JSON shape. */
export function xmlToTree(text: string): TreeObject {
  const parsed = xmlParser.parse(text, true) as Record<string, unknown>;
  const out: TreeObject = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (key.startsWith('?')) continue;
    out[key] = typed(key, value);
  }
  return out;
}

/** Applies the contract's JSON typing to a tree read as loose text (HTML tables). */
export function typedTree(name: string, value: unknown): TreeValue {
  return typed(name, value);
}
