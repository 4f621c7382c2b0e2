import { quoteIdentifier } from '../src/service/db/sqlite.ts';
import { createRequest, statusTableName } from '../src/service/db/status/requests.ts';
import type { RunningService } from './fixtures.ts';

/** Requests of one pipeline, status and hour, written in this order (the first are oldest). */
export interface SeedGroup {
  readonly pipelineId: string;
  readonly status: string;
  readonly count: number;
  readonly hour: number;
  readonly filename?: string;
  readonly message?: string;
}

/**
 * Writes a past day's requests straight into the running service's status database, in
 * one transaction: thousands of requests in a second, where running them would take
 * minutes. None is left queued, so the engine never picks one up, and the service's own
 * connection writes them, so its answer cache sees the change.
 */
export function seedDay(service: RunningService, day: string, groups: readonly SeedGroup[]) {
  const db = service.app.context.dbs.status;
  const iso = `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6, 8)}`;
  const ids: string[][] = [];
  db.transaction(() => {
    const table = quoteIdentifier(statusTableName(day));
    for (const group of groups) {
      const hour = String(group.hour).padStart(2, '0');
      const made: string[] = [];
      for (let i = 0; i < group.count; i++) {
        const second = String(i % 60).padStart(2, '0');
        made.push(
          createRequest(db, {
            pipelineId: group.pipelineId,
            filename: group.filename ?? 'orders.csv',
            args: {},
            day,
            hour,
            stamp: `${iso} ${hour}:00:${second}.000`,
          }),
        );
      }
      const update = db.prepare(
        `UPDATE ${table} SET STATUS = ?, STAGE = ?, ERRORMSG = ?, ERROR = ? WHERE REQUESTID = ?`,
      );
      const unqueue = db.prepare('DELETE FROM REQUEST_QUEUE WHERE REQUESTID = ?');
      for (const id of made) {
        update.run(
          group.status,
          group.status === 'Finish' ? 'Complete' : 'Filter',
          group.message ?? null,
          group.status === 'Error' ? 1 : 0,
          id,
        );
        // Waiting requests stay unqueued too: the tests look at them, not at the engine.
        unqueue.run(id);
      }
      ids.push(made);
    }
  })();
  return ids;
}
