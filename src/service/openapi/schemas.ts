import {
  ELEMENTS,
  ROOTS,
  WITHIN,
  type ElementName,
  type ElementSpec,
  type RootName,
  type WithinName,
} from '../../kit/wire.ts';
import type { Schema } from '../pipelineapi/operation.ts';

// A JSON Schema (2020-12, as OpenAPI 3.1 takes it): plain data, checked by ajv in the tests;
// defined beside the Part C operations, whose fields carry one.
export type { Schema };

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** Component name of a Part C element's schema: `PartC.Item`. */
export const elementSchemaName = (name: string): string => `PartC.${name}`;
/** Component name of a Part C answer with its root: `PartC.RequestList`. */
export const rootSchemaName = (root: RootName): string => `PartC.${root}`;

const leafSchemas: Record<Exclude<ElementSpec['type'], 'group'>, Schema> = {
  string: { type: 'string' },
  number: { type: 'integer' },
  boolean: { type: 'boolean' },
  cell: { type: ['string', 'null'] },
};

/** The component a Part C group refers to, unless its name gives its children other meanings. */
const GROUP = 'PartC.Group';

/** Groups whose children mean something of their own there (WITHIN's `<parent>/<name>`). */
const PARENTS = new Set(Object.keys(WITHIN).map((key) => key.split('/')[0] as string));
const withinSchemaName = (key: string): string => `PartC.${key.replace('/', '.')}`;
const groupName = (name: string | undefined): string =>
  name !== undefined && PARENTS.has(name) ? `${GROUP}.${name}` : GROUP;

/**
 * Any vocabulary element may sit in any group (the vocabulary names elements, not
 * parents), exactly as the kit's `vocabularyProblems` reads an answer; unknown names are
 * refused. In a group named as a parent in WITHIN, its entries take their place.
 */
function anyGroup(parent?: string): Schema {
  const properties: Record<string, Schema> = Object.fromEntries(
    (Object.keys(ELEMENTS) as ElementName[]).map((name) => [name, ref(elementSchemaName(name))]),
  );
  for (const key of Object.keys(WITHIN)) {
    const [owner, name] = key.split('/') as [string, string];
    if (owner === parent) properties[name] = ref(withinSchemaName(key));
  }
  return { type: 'object', properties, additionalProperties: false };
}

/** A group named `name`, with the repeated child it always holds (an array even when empty). */
function groupSchema(holds: string | undefined, name: string | undefined): Schema {
  const group = ref(groupName(name));
  return holds === undefined ? group : { ...group, required: [holds] };
}

function valueSchema(spec: ElementSpec, name: string): Schema {
  if (spec.type === 'group') return groupSchema(spec.holds, name);
  const leaf = leafSchemas[spec.type];
  return spec.alsoGroup ? { anyOf: [leaf, groupSchema(spec.holds, name)] } : leaf;
}

const elementSchema = (spec: ElementSpec, name: string): Schema =>
  spec.repeated ? { type: 'array', items: valueSchema(spec, name) } : valueSchema(spec, name);

/**
 * The JSON form of every Part C element and answer, read from the same vocabulary the
 * renderer writes and the kit decodes (src/kit/vocabulary.ts): a new element or root there
 * is in the document with no change here.
 */
export function partCSchemas(): Record<string, Schema> {
  const schemas: Record<string, Schema> = { [GROUP]: anyGroup() };
  for (const parent of PARENTS) schemas[groupName(parent)] = anyGroup(parent);
  for (const name of Object.keys(ELEMENTS) as ElementName[]) {
    schemas[elementSchemaName(name)] = elementSchema(ELEMENTS[name], name);
  }
  for (const key of Object.keys(WITHIN) as WithinName[]) {
    schemas[withinSchemaName(key)] = elementSchema(WITHIN[key], key.split('/')[1] as string);
  }
  for (const root of Object.keys(ROOTS) as RootName[]) {
    const record = (ROOTS[root] as { record?: string }).record;
    schemas[rootSchemaName(root)] = {
      type: 'object',
      properties: { [root]: groupSchema(record, root) },
      required: [root],
      additionalProperties: false,
    };
  }
  return schemas;
}

/** The schema of a Part C answer with one of these roots. */
export function partCAnswer(roots: readonly RootName[]): Schema {
  const [only] = roots;
  return roots.length === 1 && only !== undefined
    ? ref(rootSchemaName(only))
    : { oneOf: roots.map((root) => ref(rootSchemaName(root))) };
}

export const text: Schema = { type: 'string' };
export const nullableText: Schema = { type: ['string', 'null'] };
export const isoTime: Schema = { type: 'string', format: 'date-time' };
export const wholeNumber: Schema = { type: 'integer', minimum: 0 };

/** An object whose listed properties are all required and nothing else is allowed. */
export function exactly(properties: Record<string, Schema>, optional: string[] = []): Schema {
  return {
    type: 'object',
    properties,
    required: Object.keys(properties).filter((name) => !optional.includes(name)),
    additionalProperties: false,
  };
}

/** Part A's success envelope around `data`. */
export function partASuccess(data: Schema): Schema {
  return exactly({ result: exactly({ status: { const: 'success' }, data }) });
}

export const partAError: Schema = exactly({
  result: exactly({ status: { const: 'error' }, code: { type: 'integer' }, message: text }),
});
