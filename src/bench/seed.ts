import { ServiceTime } from '../service/clock.ts';
import { openDatabases } from '../service/db/databases.ts';
import { quoteIdentifier } from '../service/db/sqlite.ts';
import {
  appendAppLog,
  appendRequestLog,
  createRequest,
  statusTableName,
} from '../service/db/status/requests.ts';
import { DEMO_PIPELINES } from '../service/demo/seed.ts';
import { loadPipelines } from '../service/pipelines/load.ts';
import { startChild } from '../service/testing/child.ts';

/** The API key every benchmark's service is started with. */
export const BENCH_KEY = 'bench-key-0123456789abcdefghijklmnopqrstu';

/** The service of a bench data folder, in its own process, with the demo's pipelines. */
export function startBenchService(data: string) {
  return startChild([
    '--data',
    data,
    '--api-key',
    BENCH_KEY,
    '--no-demo',
    '--pipelines',
    DEMO_PIPELINES,
  ]);
}

/** The middle value (the upper one of an even count); NaN for none. */
export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
}

/** Marks the day's `count` oldest requests as failed, as a day's errors lie far down its pages. */
export function failOldest(dataDir: string, day: string, count: number): void {
  const dbs = openDatabases(dataDir);
  try {
    dbs.status
      .prepare(
        `UPDATE ${quoteIdentifier(statusTableName(day))} SET STATUS = 'Error', ERRORMSG = 'disk full' WHERE rowid <= ?`,
      )
      .run(count);
  } finally {
    dbs.close();
  }
}

/**
 * Fills a data folder with the demo pipelines and `count` finished requests of one day,
 * written straight into the status database (far faster than running them).
 */
export function seedRequests(
  dataDir: string,
  count: number,
  pipelineId = 'pl_1',
): { day: string; sample: string } {
  const dbs = openDatabases(dataDir);
  try {
    loadPipelines(dbs, [DEMO_PIPELINES], new Date().toISOString());
    const time = new ServiceTime();
    const now = new Date();
    const day = time.day(now);
    let sample = '';
    dbs.status.transaction(() => {
      for (let i = 0; i < count; i++) {
        sample = createRequest(dbs.status, {
          pipelineId,
          filename: 'orders.csv',
          args: {},
          day,
          hour: time.hour(now),
          stamp: time.stamp(now),
        });
      }
      dbs.status.exec(
        `UPDATE ${quoteIdentifier(statusTableName(day))} SET STATUS = 'Finish', STAGE = 'Complete'`,
      );
      dbs.status.exec('DELETE FROM REQUEST_QUEUE');
      dbs.status
        .prepare(
          'UPDATE REQUEST SET BEGINTIME = ?, ENDTIME = ?, SENSORMS = 120, FILTERMS = 40, JOINTMS = 300, SENSORFILE = FILENAME, FILESIZE = 8822',
        )
        .run(time.stamp(now), time.stamp(now));
      for (let i = 0; i < 60; i++) {
        appendRequestLog(dbs.status, sample, {
          date: time.logDate(now),
          stage: 'Filter',
          event: i % 2 ? 'End' : 'Start',
          status: 'Process',
          actionOrder: i,
          message: `action ${i}`,
        });
        appendAppLog(dbs.status, sample, {
          date: time.clockTime(now),
          type: 'INFO',
          message: `step ${i} of the application log`,
        });
      }
    })();
    return { day, sample };
  } finally {
    dbs.close();
  }
}
