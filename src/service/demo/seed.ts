import { copyFileSync, existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServiceContext } from '../context.ts';
import type { DataPaths } from '../engine/control.ts';
import { createRequest } from '../db/status/requests.ts';
import { getSetting, setSetting } from '../db/system/settings.ts';

/** The demo's own folder: its pipeline definitions and input files. */
export const DEMO_DIR = dirname(fileURLToPath(import.meta.url));
export const DEMO_PIPELINES = join(DEMO_DIR, 'pipelines.yaml');

/** Copies the demo's input files into the inbox, leaving files already there alone. */
export function seedDemoInbox(paths: DataPaths): void {
  const source = join(DEMO_DIR, 'inbox');
  for (const name of readdirSync(source)) {
    const target = join(paths.inbox, name);
    if (!existsSync(target)) copyFileSync(join(source, name), target);
  }
}

/** First start with the demo: a few requests, one of them bound to fail (no such file). */
export async function seedDemoRequests(context: ServiceContext): Promise<void> {
  if ((await getSetting(context.shared, 'demoSeeded')) === 'true') return;
  const now = context.clock.now();
  const runs: [string, string, Record<string, string>][] = [
    ['pl_1', 'orders.csv', { minAmount: '10', region: 'EU' }],
    ['pl_2', 'readings.jsonl', {}],
    ['pl_3', 'customers.csv', {}],
    ['pl_1', 'orders.csv', { minAmount: '250', region: 'US' }],
    ['pl_2', 'readings-missing.jsonl', {}],
    ['pl_4', 'orders.csv', {}],
  ];
  for (const [pipelineId, filename, args] of runs) {
    createRequest(context.dbs.status, {
      pipelineId,
      filename,
      args,
      day: context.time.day(now),
      hour: context.time.hour(now),
      stamp: context.time.stamp(now),
    });
  }
  await setSetting(context.shared, 'demoSeeded', 'true');
}
