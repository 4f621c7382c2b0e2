import { XMLParser } from 'fast-xml-parser';
import { elementSpec, rootSpec, type ElementSpec } from './vocabulary.ts';

/** A response in the JSON shape of contract section 2, whatever format it came in. */
export type TreeValue = string | number | boolean | null | TreeObject | TreeValue[];
export interface TreeObject {
  [name: string]: TreeValue;
}

const xmlParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  // Values stay text and repetition is not guessed: both come from the vocabulary below,
  // the same for XML, JSON and HTML.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  cdataPropName: false,
  processEntities: true,
});

/** A root is a group holding its record element; anything else is looked up by parent and name. */
function specOf(name: string, parent: string | undefined): ElementSpec | undefined {
  if (parent === undefined) {
    const root = rootSpec(name);
    return root && { type: 'group', ...(root.record ? { holds: root.record } : {}) };
  }
  return elementSpec(name, parent);
}

function typedLeaf(spec: ElementSpec | undefined, value: string | number | boolean): TreeValue {
  // Outside the vocabulary (another service's extension), a value stays as it came.
  if (spec === undefined) return value;
  if (spec.type === 'number') {
    if (typeof value === 'number') return value;
    const text = String(value);
    return /^-?\d+$/.test(text) ? Number(text) : text;
  }
  if (spec.type === 'boolean') {
    if (typeof value === 'boolean') return value;
    return value === 'true' ? true : value === 'false' ? false : String(value);
  }
  return String(value);
}

function typedOne(name: string, spec: ElementSpec | undefined, value: unknown): TreeValue {
  if (value === null) return null;
  if (Array.isArray(value)) return value.map((v) => typedOne(name, spec, v));
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    // XML's NULL cell; HTML's reader marks its NULL cells the same way.
    if (record['@_isnull'] === 'true') return null;
    const out: TreeObject = {};
    for (const [key, child] of Object.entries(record)) {
      if (key.startsWith('@_') || key === '#text') continue;
      out[key] = typedElement(key, child, name);
    }
    // An element with attributes and text keeps its text under #text.
    if ('#text' in record && Object.keys(out).length === 0)
      return typedOne(name, spec, record['#text']);
    if (spec?.holds !== undefined && !(spec.holds in out)) out[spec.holds] = [];
    return out;
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    // An empty group (XML `<RequestLog></RequestLog>`) is the group with its empty list.
    if (value === '' && spec?.type === 'group') return typedOne(name, spec, {});
    return typedLeaf(spec, value);
  }
  return typedLeaf(spec, '');
}

/**
 * Applies the vocabulary to one element read loosely (from XML, HTML or JSON): repeated
 * elements become arrays, numbers and booleans are typed, NULL cells become null, a
 * group's list is there even when empty.
 */
function typedElement(name: string, value: unknown, parent: string | undefined): TreeValue {
  const spec = specOf(name, parent);
  if (Array.isArray(value)) return value.map((v) => typedOne(name, spec, v));
  const one = typedOne(name, spec, value);
  return spec?.repeated ? [one] : one;
}

/**
 * Applies the vocabulary to a whole answer read loosely: the one place where XML, JSON
 * and HTML get the contract's JSON typing (contract section 2).
 */
export function typedAnswer(loose: Readonly<Record<string, unknown>>): TreeObject {
  const out: TreeObject = {};
  for (const [key, value] of Object.entries(loose)) {
    if (key.startsWith('?')) continue;
    out[key] = typedElement(key, value, undefined);
  }
  return out;
}

/** Parses a Part C XML body into the JSON shape. */
export function xmlToTree(text: string): TreeObject {
  return typedAnswer(xmlParser.parse(text, true) as Record<string, unknown>);
}

/**
 * Parses a Part C JSON body into the JSON shape, holding a service that writes one record
 * as an object or a number as text to the same tree as XML and HTML give.
 */
export function jsonToTree(text: string): TreeObject {
  const parsed = JSON.parse(text) as unknown;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new SyntaxError('a Part C JSON answer is an object');
  }
  return typedAnswer(parsed as Record<string, unknown>);
}

// Lenient readers of a tree from a service that may leave things out or say them otherwise:
// what is missing or of another kind reads as nothing, never as an error (a gateway passes
// such answers on; the kit's own decoders, in records.ts, name what is wrong instead).

/** The element `value` is, or an empty one for anything else (a text, a list, nothing). */
export function elementOf(value: TreeValue | undefined): TreeObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

/** The elements of a repeated element: one alone, or none for nothing or an empty text. */
export function elementsOf(value: TreeValue | undefined): TreeObject[] {
  if (value === undefined || value === null || value === '') return [];
  return (Array.isArray(value) ? value : [value]).map(elementOf);
}

/** A leaf's text: '' for nothing, null or an element. */
export function leafText(value: TreeValue | undefined): string {
  return value === undefined || value === null || typeof value === 'object' ? '' : String(value);
}
