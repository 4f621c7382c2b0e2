import type { ArgRules } from '../../../kit/index.ts';
import { prepared, type Db } from '../sqlite.ts';

export type Runmode = 'run' | 'stop';
export type StageName = 'Sensor' | 'Filter' | 'Joint';

export interface PipelineArg {
  readonly name: string;
  readonly defaultValue: string;
  /** Type, required, pattern, choices as the definition declares them (none: any text). */
  readonly rules: ArgRules;
}

export interface PipelineAction {
  readonly stage: StageName;
  readonly order: number;
  readonly type: string;
  readonly config: unknown;
}

export interface PipelineRow {
  readonly id: string;
  readonly num: number;
  readonly name: string;
  readonly runmode: Runmode;
  readonly description: string;
  /** ISO-8601 instants. */
  readonly created: string;
  readonly updated: string;
  readonly args: readonly PipelineArg[];
}

interface RawPipeline {
  ID: string;
  NUM: number;
  NAME: string;
  RUNMODE: Runmode;
  DESCRIPTION: string;
  CREATED: string;
  UPDATED: string;
}

function argsOf(db: Db, id: string): PipelineArg[] {
  return (
    prepared(
      db,
      'SELECT NAME, DEFAULTVALUE, RULES FROM PIPELINE_ARG WHERE PIPELINEID = ? ORDER BY POSITION',
    ).all(id) as { NAME: string; DEFAULTVALUE: string; RULES: string }[]
  ).map((r) => ({
    name: r.NAME,
    defaultValue: r.DEFAULTVALUE,
    rules: JSON.parse(r.RULES) as ArgRules,
  }));
}

function toRow(db: Db, raw: RawPipeline): PipelineRow {
  return {
    id: raw.ID,
    num: raw.NUM,
    name: raw.NAME,
    runmode: raw.RUNMODE,
    description: raw.DESCRIPTION,
    created: raw.CREATED,
    updated: raw.UPDATED,
    args: argsOf(db, raw.ID),
  };
}

export function listPipelines(db: Db): PipelineRow[] {
  const raws = prepared(db, 'SELECT * FROM PIPELINE ORDER BY NUM').all() as RawPipeline[];
  return raws.map((raw) => toRow(db, raw));
}

/** Names by pipeline id, for lists that show them (one query, no Args). */
export function pipelineNames(db: Db): Map<string, string> {
  const rows = prepared(db, 'SELECT ID, NAME FROM PIPELINE').all() as {
    ID: string;
    NAME: string;
  }[];
  return new Map(rows.map((r) => [r.ID, r.NAME]));
}

export function getPipeline(db: Db, id: string): PipelineRow | undefined {
  const raw = prepared(db, 'SELECT * FROM PIPELINE WHERE ID = ?').get(id) as
    RawPipeline | undefined;
  return raw ? toRow(db, raw) : undefined;
}

export function getActions(db: Db, id: string): PipelineAction[] {
  const rows = prepared(
    db,
    'SELECT STAGE, ACTIONORDER, TYPE, CONFIG FROM PIPELINE_ACTION WHERE PIPELINEID = ? ORDER BY STAGE, ACTIONORDER',
  ).all(id) as { STAGE: StageName; ACTIONORDER: number; TYPE: string; CONFIG: string }[];
  return rows.map((r) => ({
    stage: r.STAGE,
    order: r.ACTIONORDER,
    type: r.TYPE,
    config: JSON.parse(r.CONFIG) as unknown,
  }));
}

/** Sets Runmode; returns false when the pipeline does not exist. */
export function setRunmode(db: Db, id: string, runmode: Runmode, updated: string): boolean {
  return (
    prepared(db, 'UPDATE PIPELINE SET RUNMODE = ?, UPDATED = ? WHERE ID = ?').run(
      runmode,
      updated,
      id,
    ).changes > 0
  );
}

export interface PipelineDefinitionRecord {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly runmode: Runmode;
  readonly args: readonly PipelineArg[];
  readonly actions: readonly PipelineAction[];
}

/**
 * Writes a definition. An existing pipeline keeps its Runmode (the operator's choice) and
 * creation date; its update date moves only when the definition really changed.
 */
export function upsertPipeline(db: Db, def: PipelineDefinitionRecord, now: string): void {
  db.transaction(() => {
    const existing = getPipeline(db, def.id);
    const before = existing
      ? JSON.stringify([existing.name, existing.description, existing.args, getActions(db, def.id)])
      : '';
    const after = JSON.stringify([
      def.name,
      def.description,
      def.args,
      [...def.actions].sort((a, b) => a.stage.localeCompare(b.stage) || a.order - b.order),
    ]);
    if (existing && before === after) return;
    if (existing) {
      prepared(db, 'UPDATE PIPELINE SET NAME = ?, DESCRIPTION = ?, UPDATED = ? WHERE ID = ?').run(
        def.name,
        def.description,
        now,
        def.id,
      );
    } else {
      prepared(
        db,
        'INSERT INTO PIPELINE (ID, NUM, NAME, RUNMODE, DESCRIPTION, CREATED, UPDATED) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ).run(def.id, Number(def.id.slice(3)), def.name, def.runmode, def.description, now, now);
    }
    prepared(db, 'DELETE FROM PIPELINE_ARG WHERE PIPELINEID = ?').run(def.id);
    prepared(db, 'DELETE FROM PIPELINE_ACTION WHERE PIPELINEID = ?').run(def.id);
    def.args.forEach((arg, position) => {
      prepared(
        db,
        'INSERT INTO PIPELINE_ARG (PIPELINEID, POSITION, NAME, DEFAULTVALUE, RULES) VALUES (?, ?, ?, ?, ?)',
      ).run(def.id, position + 1, arg.name, arg.defaultValue, JSON.stringify(arg.rules));
    });
    for (const action of def.actions) {
      prepared(
        db,
        'INSERT INTO PIPELINE_ACTION (PIPELINEID, STAGE, ACTIONORDER, TYPE, CONFIG) VALUES (?, ?, ?, ?, ?)',
      ).run(def.id, action.stage, action.order, action.type, JSON.stringify(action.config));
    }
  })();
}

/** Ids of the suspended pipelines: the scheduler leaves their requests waiting. */
export function stoppedPipelineIds(db: Db): string[] {
  return (
    prepared(db, "SELECT ID FROM PIPELINE WHERE RUNMODE = 'stop'").all() as { ID: string }[]
  ).map((r) => r.ID);
}
