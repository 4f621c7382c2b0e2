/**
 * The element vocabulary of Part C answers: one entry per element name, one per root, and
 * one per parent and name where a name means something else under that parent (WITHIN).
 *
 * Everything that makes XML, JSON and HTML decode to the same tree is read from here: the
 * kit's XML, JSON and HTML readers (tree.ts, html.ts) and the service's renderer. Adding an
 * element is one entry in ELEMENTS (or in WITHIN, under its parent); adding an answer with
 * a new root is one entry in ROOTS. The service's vocabulary test renders every operation's answer in the three
 * formats and fails on an element missing here or typed differently.
 */

/**
 * What an element holds in the JSON form (contract section 2).
 *
 * - `string`: text (every value not listed otherwise);
 * - `number`: a JSON number, an integer in XML and HTML text;
 * - `boolean`: a JSON boolean, `true` or `false` in XML and HTML text;
 * - `cell`: a database value, text or null (`isnull="true"` in XML, `data-null` in HTML);
 * - `group`: an element of elements.
 */
export type ElementType = 'string' | 'number' | 'boolean' | 'cell' | 'group';

export interface ElementSpec {
  readonly type: ElementType;
  /** May repeat: always an array in JSON, even of one or none. */
  readonly repeated?: true;
  /** A leaf type that may also hold elements (an Item is a cell, or a column's Name/Type/Key). */
  readonly alsoGroup?: true;
  /**
   * The repeated child of a group: an array even when empty, so that XML, which cannot
   * write an empty list, decodes like JSON.
   */
  readonly holds?: string;
  /**
   * `omitted`: the HTML form does not carry this element (the spec's HTML list has six
   * cells per pipeline, so no Args); HTML decodes without it.
   */
  readonly html?: 'omitted';
}

const string: ElementSpec = { type: 'string' };
const number: ElementSpec = { type: 'number' };
const boolean: ElementSpec = { type: 'boolean' };
const group: ElementSpec = { type: 'group' };
const logs: ElementSpec = { type: 'group', holds: 'Log' };
const records: ElementSpec = { type: 'group', repeated: true };

/** Every element of every Part C answer, by name, whatever its parent. */
export const ELEMENTS = {
  // PipelineList
  PipeLine: records,
  Id: string,
  Name: string,
  Runmode: string,
  Createdate: string,
  Updatedate: string,
  Description: string,
  Args: { type: 'group', holds: 'Item', html: 'omitted' },
  Item: { type: 'cell', repeated: true, alsoGroup: true },
  Value: string,
  // An Arg Item's declared rules (contract section 10); its Type is the shared Type below.
  Required: boolean,
  Pattern: string,
  Choice: { type: 'string', repeated: true },
  // RequestList and RequestDetail
  Request: records,
  RequestId: string,
  PipelineId: string,
  Status: string,
  Stage: string,
  BeginDate: string,
  Info: group,
  Index: number,
  Prev: number,
  Next: number,
  Count: number,
  Total: number,
  // A gateway's table page (contract section 12): the rows it read of a table that may hold
  // more, stated instead of Total.
  Bound: number,
  // RequestList Info (contract section 8, ours): the service time the answer is as of,
  // yyyymmddhhmmss, to send back as `since` for what changed after it.
  AsOf: string,
  Error: boolean,
  Date: string,
  BeginTime: string,
  EndTime: string,
  SensorTime: string,
  FilterTime: string,
  JointTime: string,
  SensorFile: string,
  FileSize: string,
  // Rows per stage (contract section 10): absent while unknown.
  SensorRows: number,
  FilterKept: number,
  JointRows: number,
  RequestLog: logs,
  AppLog: logs,
  Log: records,
  Event: string,
  ActionOrder: number,
  Message: string,
  Type: string,
  // ExecuteResponse, Response
  Code: number,
  RowCount: number,
  Version: string,
  // Result
  Header: { type: 'group', holds: 'Item' },
  Record: { type: 'group', repeated: true, holds: 'Item' },
  Key: string,
  // Inbox (contract section 10)
  File: records,
  Size: number,
  Modified: string,
} as const satisfies Readonly<Record<string, ElementSpec>>;
export type ElementName = keyof typeof ELEMENTS;

const counts: ElementSpec = { type: 'group', repeated: true };

/**
 * Elements whose meaning depends on their parent, keyed `<parent>/<name>`; they win over
 * ELEMENTS. RequestStats (contract section 8) reuses names other answers use otherwise:
 * its `Count` is a group of Status and Value (a number in Info), its `Hour` holds an
 * `Hour` number, its `Value` is a number (text in an Args Item).
 */
export const WITHIN = {
  'RequestStats/Pipeline': { type: 'group', repeated: true, holds: 'Count' },
  'RequestStats/Hour': { type: 'group', repeated: true, holds: 'Count' },
  'Pipeline/Count': counts,
  'Hour/Count': counts,
  'Hour/Hour': number,
  'Count/Value': number,
} as const satisfies Readonly<Record<string, ElementSpec>>;
export type WithinName = keyof typeof WITHIN;

/** How a root's answer is laid out as HTML tables (contract section 2). */
export interface RootSpec {
  /**
   * The repeated element whose records are the rows of the table (a header row of `th`,
   * one `tr` of `td` per record). Without it the root's own leaves are the one row.
   */
  readonly record?: ElementName;
  /** The element whose Items are the header row (with `data-type`, `data-key` for columns). */
  readonly header?: ElementName;
  /**
   * Elements that follow as further tables marked `data-part`: a group holding records (a
   * request's RequestLog), or repeated records of the root itself (RequestStats' Pipeline).
   * A record holding repeated records of its own (a Pipeline's Counts) is laid out one row
   * per inner record, its own cells spanning them (`rowspan`); see {@link HTML_ATTRIBUTES}.
   */
  readonly parts?: readonly string[];
}

/**
 * Every root element of a Part C answer. Leaves and groups of leaves beside the records
 * (Info, Status) travel in HTML as `data-*` attributes of the table, named by
 * {@link htmlAttributeName}.
 */
export const ROOTS = {
  PipelineList: { record: 'PipeLine' },
  RequestList: { record: 'Request' },
  RequestDetail: { parts: ['RequestLog', 'AppLog'] },
  ExecuteResponse: {},
  Response: {},
  Result: { record: 'Record', header: 'Header' },
  RequestStats: { parts: ['Pipeline', 'Hour'] },
  Inbox: { record: 'File' },
} as const satisfies Readonly<Record<string, RootSpec>>;
export type RootName = keyof typeof ROOTS;

/**
 * The spec of an element under its parent (an element or root name), or undefined for a
 * name outside the vocabulary. Without a parent, the meaning a name has anywhere WITHIN
 * does not say otherwise.
 *
 * @example
 * elementSpec('Count', 'Info') // { type: 'number' }
 * elementSpec('Count', 'Hour') // { type: 'group', repeated: true }
 */
export function elementSpec(name: string, parent?: string): ElementSpec | undefined {
  if (parent !== undefined) {
    const key = `${parent}/${name}`;
    if (Object.hasOwn(WITHIN, key)) return WITHIN[key as WithinName];
  }
  return Object.hasOwn(ELEMENTS, name) ? ELEMENTS[name as ElementName] : undefined;
}

/** The HTML layout of a root, or undefined for a root outside the vocabulary. */
export function rootSpec(name: string): RootSpec | undefined {
  return Object.hasOwn(ROOTS, name) ? ROOTS[name as RootName] : undefined;
}

/** Fixed attribute names of the HTML form. */
export const HTML_ATTRIBUTES = {
  /** On the main table: the root element's name. */
  root: 'data-root',
  /** On a further table: the group it holds (RequestLog, AppLog). */
  part: 'data-part',
  /** On a `td`: the cell is NULL (an empty `td` is an empty string). */
  null: 'data-null',
  /** On a column's `th`: its database type and whether it is a key. */
  type: 'data-type',
  key: 'data-key',
  /**
   * On a part's `th`: the column belongs to the inner records of each row's record (a
   * Pipeline's Count). A row whose cells carry `rowspan` starts a record; rows after it
   * hold only inner cells; a record without inner records is its own cells alone.
   */
  inner: 'data-inner',
} as const;

/**
 * The `data-*` attribute carrying a leaf beside the records: `Status` → `data-status`,
 * Info's `Index` → `data-info-index`. Element names are letters and digits, and no two
 * differ only in case (a vocabulary test holds it), so the name reads back unambiguously.
 */
export function htmlAttributeName(...path: readonly string[]): string {
  return `data-${path.map((name) => name.toLowerCase()).join('-')}`;
}

const byLowerCase = new Map<string, ElementName>(
  (Object.keys(ELEMENTS) as ElementName[]).map((name) => [name.toLowerCase(), name]),
);

/** The element path of a `data-*` attribute name, or undefined when it names none. */
export function elementPathOfAttribute(attribute: string): ElementName[] | undefined {
  if (!attribute.startsWith('data-')) return undefined;
  const path = attribute.slice('data-'.length).split('-');
  const names = path.map((part) => byLowerCase.get(part));
  return names.every((n): n is ElementName => n !== undefined) ? names : undefined;
}

function isPlainObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function valueProblem(spec: ElementSpec, value: unknown): string | undefined {
  if (isPlainObject(value)) {
    return spec.type === 'group' || spec.alsoGroup ? undefined : `is a group, not a ${spec.type}`;
  }
  const fits =
    spec.type === 'string'
      ? typeof value === 'string'
      : spec.type === 'number'
        ? typeof value === 'number'
        : spec.type === 'boolean'
          ? typeof value === 'boolean'
          : spec.type === 'cell'
            ? typeof value === 'string' || value === null
            : false;
  return fits ? undefined : `holds ${JSON.stringify(value)}, not a ${spec.type}`;
}

function childProblems(
  path: string,
  parent: string,
  element: Readonly<Record<string, unknown>>,
  holds: string | undefined,
  out: string[],
): void {
  if (holds !== undefined && !Object.hasOwn(element, holds)) {
    out.push(`${path}.${holds}: missing (an array even when empty)`);
  }
  for (const [name, value] of Object.entries(element)) {
    const at = `${path}.${name}`;
    const spec = elementSpec(name, parent);
    if (spec === undefined) {
      out.push(`${at}: not in the wire vocabulary`);
      continue;
    }
    if (Array.isArray(value) !== Boolean(spec.repeated)) {
      out.push(
        `${at}: ${spec.repeated ? 'repeats but is not an array' : 'is an array but does not repeat'}`,
      );
      continue;
    }
    for (const item of Array.isArray(value) ? (value as unknown[]) : [value]) {
      const problem = valueProblem(spec, item);
      if (problem) out.push(`${at}: ${problem}`);
      else if (isPlainObject(item)) childProblems(at, name, item, spec.holds, out);
    }
  }
}

/**
 * Where an answer in the JSON form leaves the vocabulary: a root or element it lacks, a
 * value of another type, a repeated element that is not an array. Empty when none.
 *
 * @example
 * vocabularyProblems({ Response: { Version: '1.0' } }) // []
 */
export function vocabularyProblems(answer: Readonly<Record<string, unknown>>): string[] {
  const out: string[] = [];
  for (const [root, body] of Object.entries(answer)) {
    const spec = rootSpec(root);
    if (spec === undefined) out.push(`${root}: not a root of the wire vocabulary`);
    else if (!isPlainObject(body)) out.push(`${root}: is not a group`);
    else childProblems(root, root, body, spec.record, out);
  }
  return out;
}
