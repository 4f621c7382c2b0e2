import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { PIPELINE_ID_PATTERN, PIPELINE_ID_SHAPE } from '../../kit/wire.ts';
import { ARG_TYPES, argProblem, wholeValuePattern } from './arg-rules.ts';
import { ACTION_TABLE_NAME } from '../db/action/migrations.ts';
import type { PipelineAction, PipelineDefinitionRecord } from '../db/system/pipelines.ts';

// The pipeline definition file format. It is documented in docs/engine.md; keep the two in step.

const fieldName = z.string().min(1).max(128);
const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const COMPARISONS = [
  '=',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  'contains',
  'startsWith',
  'endsWith',
  'in',
  'isNull',
  'notNull',
] as const;

export type Predicate =
  | {
      field: string;
      op: (typeof COMPARISONS)[number];
      value?: z.infer<typeof scalar> | z.infer<typeof scalar>[];
    }
  | { all: Predicate[] }
  | { any: Predicate[] }
  | { not: Predicate };

const predicate: z.ZodType<Predicate> = z.lazy(() =>
  z.union([
    z.strictObject({
      field: fieldName,
      op: z.enum(COMPARISONS),
      value: z.union([scalar, z.array(scalar)]).optional(),
    }),
    z.strictObject({ all: z.array(predicate).min(1) }),
    z.strictObject({ any: z.array(predicate).min(1) }),
    z.strictObject({ not: predicate }),
  ]),
);

export const CAST_TYPES = ['string', 'integer', 'double', 'boolean', 'timestamp'] as const;
export const COLUMN_TYPES = ['INTEGER', 'BIGINT', 'DOUBLE', 'VARCHAR', 'TIMESTAMP'] as const;

const filterAction = z.union([
  z.strictObject({ keep: predicate }),
  z.strictObject({ select: z.array(fieldName).min(1) }),
  z.strictObject({ rename: z.record(fieldName, fieldName) }),
  z.strictObject({ cast: z.record(fieldName, z.enum(CAST_TYPES)) }),
  z.strictObject({ derive: z.record(fieldName, z.string().min(1).max(2000)) }),
]);

const column = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9_]{0,62}$/, 'a column name is a letter then letters, digits or _'),
  type: z.enum(COLUMN_TYPES),
  key: z.boolean().optional(),
  /** Field of the row to take the value from; the column name when absent. */
  from: fieldName.optional(),
});

const jointAction = z.union([
  z.strictObject({
    table: z.strictObject({
      name: z
        .string()
        .regex(
          ACTION_TABLE_NAME,
          'a table name is a letter then letters, digits or _ (at most 63)',
        ),
      columns: z.array(column).min(1),
    }),
  }),
  z.strictObject({
    file: z.strictObject({
      /** File name in the outbox; `${requestid}` and `${pipelineid}` are replaced. */
      name: z.string().min(1).max(200),
      format: z.enum(['csv', 'jsonl']),
    }),
  }),
]);

const pipeline = z.strictObject({
  id: z.string().regex(PIPELINE_ID_PATTERN, `a pipeline id has the shape ${PIPELINE_ID_SHAPE}`),
  name: z.string().min(1).max(200),
  description: z.string().max(2000).default(''),
  runmode: z.enum(['run', 'stop']).default('run'),
  args: z
    .array(
      z.strictObject({
        name: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,62}$/),
        default: z.coerce.string().default(''),
        type: z.enum(ARG_TYPES).optional(),
        required: z.boolean().optional(),
        pattern: z.string().min(1).max(500).optional(),
        choices: z.array(z.coerce.string()).min(1).max(200).optional(),
      }),
    )
    .default([]),
  sensor: z
    .strictObject({
      format: z.enum(['auto', 'csv', 'jsonl']).default('auto'),
      delimiter: z.string().length(1).default(','),
    })
    .default({ format: 'auto', delimiter: ',' }),
  filter: z.array(filterAction).default([]),
  joint: z.array(jointAction).min(1),
});

const definitionFile = z.strictObject({ pipelines: z.array(pipeline) });

export type PipelineDefinition = z.infer<typeof pipeline>;
export type FilterAction = z.infer<typeof filterAction>;
export type JointAction = z.infer<typeof jointAction>;
export type SensorConfig = PipelineDefinition['sensor'];

/** Reads and checks a definition file (YAML, of which JSON is a subset). */
export function loadDefinitionFile(path: string): PipelineDefinition[] {
  const text = readFileSync(path, 'utf8');
  return parseDefinitions(text, path);
}

const MAX_TABLE_COLUMNS = 2000;

export function parseDefinitions(text: string, source = 'definition'): PipelineDefinition[] {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new Error(`${source}: not valid YAML or JSON: ${(error as Error).message}`);
  }
  const result = definitionFile.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue ? issue.path.join('.') : '';
    throw new Error(`${source}: ${where ? `${where}: ` : ''}${issue?.message ?? 'invalid'}`);
  }
  const ids = new Set<string>();
  for (const def of result.data.pipelines) {
    if (ids.has(def.id)) throw new Error(`${source}: pipeline ${def.id} is defined twice`);
    ids.add(def.id);
    const argNames = new Set<string>();
    for (const arg of def.args) {
      if (argNames.has(arg.name))
        throw new Error(`${source}: ${def.id}: arg ${arg.name} is defined twice`);
      argNames.add(arg.name);
      if (arg.pattern !== undefined) {
        try {
          wholeValuePattern(arg.pattern);
        } catch (error) {
          throw new Error(
            `${source}: ${def.id}: arg ${arg.name}: pattern is not a regular expression: ${(error as Error).message}`,
          );
        }
      }
      // Only a given default is checked: an empty one of a required Arg means "ask".
      const problem = arg.default === '' ? undefined : argProblem(arg, arg.default);
      if (problem !== undefined) {
        throw new Error(`${source}: ${def.id}: arg ${arg.name}: default ${problem}`);
      }
    }
    for (const action of def.joint) {
      // SQLite's own limit (SQLITE_MAX_COLUMN), said before a request fails on it.
      if ('table' in action && action.table.columns.length > MAX_TABLE_COLUMNS)
        throw new Error(
          `${source}: ${def.id}: table ${action.table.name} has ${action.table.columns.length} columns; a table has at most ${MAX_TABLE_COLUMNS}`,
        );
    }
    if (def.args.some((a) => ['pipelineid', 'filename'].includes(a.name.toLowerCase()))) {
      throw new Error(`${source}: ${def.id}: pipelineid and filename are not usable as arg names`);
    }
  }
  return result.data.pipelines;
}

function actionOf(action: Record<string, unknown>): { type: string; config: unknown } {
  const [type, config] = Object.entries(action)[0] ?? ['', null];
  return { type, config };
}

/** The rows the system database keeps of a definition. */
export function toRecord(def: PipelineDefinition): PipelineDefinitionRecord {
  const actions: PipelineAction[] = [
    { stage: 'Sensor', order: 1, type: 'read', config: def.sensor },
    ...def.filter.map((a, i) => ({ stage: 'Filter' as const, order: i + 1, ...actionOf(a) })),
    ...def.joint.map((a, i) => ({ stage: 'Joint' as const, order: i + 1, ...actionOf(a) })),
  ];
  return {
    id: def.id,
    name: def.name,
    description: def.description,
    runmode: def.runmode,
    args: def.args.map((a) => ({
      name: a.name,
      defaultValue: a.default,
      rules: {
        ...(a.type !== undefined ? { type: a.type } : {}),
        ...(a.required !== undefined ? { required: a.required } : {}),
        ...(a.pattern !== undefined ? { pattern: a.pattern } : {}),
        ...(a.choices !== undefined ? { choices: a.choices } : {}),
      },
    })),
    actions,
  };
}

/** Rebuilds a definition from what the system database keeps. */
export function fromActions(actions: readonly PipelineAction[]): {
  sensor: SensorConfig;
  filter: FilterAction[];
  joint: JointAction[];
} {
  const sensor = actions.find((a) => a.stage === 'Sensor')?.config as SensorConfig | undefined;
  const byOrder = (a: PipelineAction, b: PipelineAction) => a.order - b.order;
  return {
    sensor: sensor ?? { format: 'auto', delimiter: ',' },
    filter: actions
      .filter((a) => a.stage === 'Filter')
      .sort(byOrder)
      .map((a) => ({ [a.type]: a.config }) as FilterAction),
    joint: actions
      .filter((a) => a.stage === 'Joint')
      .sort(byOrder)
      .map((a) => ({ [a.type]: a.config }) as JointAction),
  };
}
