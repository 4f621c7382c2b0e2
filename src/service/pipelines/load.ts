import type { Databases } from '../db/databases.ts';
import { upsertPipeline } from '../db/system/pipelines.ts';
import { loadDefinitionFile, toRecord } from './definition.ts';

/** Loads definition files into the system database, replacing pipelines of the same id. */
export function loadPipelines(dbs: Databases, files: readonly string[], stamp: string): void {
  for (const file of files) {
    for (const def of loadDefinitionFile(file)) upsertPipeline(dbs.system, toRecord(def), stamp);
  }
}
