import { mkdir, rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import * as cache from '../db/action/cache.ts';
import type { Checkpointer } from '../db/action/checkpointer.ts';
import type { Db } from '../db/sqlite.ts';
import type { RequestRow } from '../db/status/requests.ts';
import type { JointAction } from '../pipelines/definition.ts';
import type { ActionLock } from './action-lock.ts';
import {
  Cancelled,
  checkpoint,
  describeWriteFailure,
  StageFailure,
  type Running,
} from './failures.ts';
import { FileWriter, TableWriter } from './joint.ts';
import type { Progress } from './progress.ts';
import type { LogLine, RequestRecorder } from './recorder.ts';
import { substitute, type Row } from './values.ts';

export const PARTIAL_PREFIX = '.partial-';
/**
 * Rows written between two turns of the event loop: the writes run on the main thread, and
 * 500 rows (about a millisecond) is as long as an API call should wait behind them.
 */
const ROWS_PER_TURN = 500;
// eslint-disable-next-line no-control-regex
const PLAIN_FILE_NAME = /^(?!.*\.\.)[^/\\\u0000-\u001f\u007f]{1,255}$/;

export interface JointContext {
  readonly action: Db;
  /** Commits without SQLite's checkpoint in the COMMIT, and checkpoints off the main thread. */
  readonly checkpointer: Checkpointer;
  readonly lock: ActionLock;
  readonly recorder: RequestRecorder;
  readonly outbox: string;
  /** The action database changed (commit or rollback): cached answers are stale. */
  readonly touch: () => void;
}

/**
 * One transaction on the action database around a write, begun when the first batch comes
 * (a request still reading its input keeps nobody else from the database) and rolled back
 * on any failure; the lock is held from BEGIN to COMMIT or ROLLBACK.
 */
class JointTransaction {
  private release: (() => void) | undefined;
  private open = false;

  constructor(
    private readonly context: JointContext,
    private readonly entry: Running,
  ) {}

  get begun(): boolean {
    return this.release !== undefined;
  }

  async begin(): Promise<void> {
    this.release = await this.context.lock.acquire(this.entry.requestId);
    checkpoint(this.entry);
    this.context.action.exec('BEGIN IMMEDIATE');
    this.open = true;
  }

  commit(): void {
    this.context.checkpointer.commit();
    this.open = false;
    this.end();
  }

  /** Rolls back what is open and gives the lock back; safe to call more than once. */
  abandon(): void {
    if (this.open) {
      this.open = false;
      this.context.action.exec('ROLLBACK');
      this.context.touch();
    }
    this.release?.();
    this.release = undefined;
  }

  private end(): void {
    this.context.touch();
    this.release?.();
    this.release = undefined;
  }
}

/**
 * The Joint: writes every batch to each table action (inside one transaction) and file
 * action (beside its final name), then commits, with the marker that keeps a retry from
 * writing the tables again, and renames the files.
 */
export async function writeJoint(
  context: JointContext,
  request: RequestRow,
  entry: Running,
  actions: readonly JointAction[],
  args: Record<string, string>,
  rows: AsyncIterable<Row[]>,
  progress: Progress,
): Promise<void> {
  const { requestId, pipelineId } = request;
  const { action, outbox, recorder } = context;
  const tablesDone = cache.completion(action, requestId, 'JointTables') !== undefined;
  const files: { writer: FileWriter; final: string; order: number }[] = [];
  const tables: { writer: TableWriter; order: number }[] = [];
  const transaction = new JointTransaction(context, entry);
  let entered = false;
  const enter = async (): Promise<void> => {
    entered = true;
    progress.enter('Joint');
    for (const [i, spec] of actions.entries()) {
      recorder.transition(request, {
        log: {
          stage: 'Joint',
          event: 'Start',
          status: 'Process',
          actionOrder: i + 1,
          message:
            'table' in spec
              ? `insert into ${spec.table.name}`
              : `write ${substitute(spec.file.name, args)}`,
        },
      });
      if ('table' in spec) {
        if (tablesDone) continue;
        entry.tables.add(spec.table.name);
        try {
          tables.push({ writer: new TableWriter(action, spec.table), order: i + 1 });
        } catch (error) {
          throw new StageFailure('Joint', (error as Error).message);
        }
      } else {
        const name = substitute(spec.file.name, args);
        if (!PLAIN_FILE_NAME.test(name)) {
          throw new StageFailure(
            'Joint',
            `Output file name ${JSON.stringify(name)} is not a plain file name.`,
          );
        }
        await mkdir(outbox, { recursive: true });
        files.push({
          writer: new FileWriter(
            join(outbox, `${PARTIAL_PREFIX}${requestId}-${i}`),
            spec.file.format,
          ),
          final: join(outbox, name),
          order: i + 1,
        });
      }
    }
  };
  const start = async (): Promise<void> => {
    if (!transaction.begun) await transaction.begin();
    if (!entered) await enter();
  };
  try {
    checkpoint(entry);
    for await (const batch of rows) {
      checkpoint(entry);
      await start();
      for (let from = 0; from < batch.length; from += ROWS_PER_TURN) {
        const slice =
          batch.length <= ROWS_PER_TURN ? batch : batch.slice(from, from + ROWS_PER_TURN);
        const started = performance.now();
        for (const { writer } of tables) {
          try {
            writer.write(slice);
          } catch (error) {
            throw new StageFailure(
              'Joint',
              describeWriteFailure(error) ?? `${writer.table}: ${(error as Error).message}`,
            );
          }
        }
        for (const { writer } of files) await writer.write(slice);
        progress.spend('Joint', performance.now() - started);
        await nextTurn();
      }
    }
    checkpoint(entry);
    await start();
    const started = performance.now();
    for (const { writer } of files) await writer.close();
    cache.markComplete(action, requestId, pipelineId, 'JointTables', {
      tables: tables.map((t) => t.writer.table),
    });
    transaction.commit();
    for (const file of files) await rename(file.writer.path, file.final);
    progress.spend('Joint', performance.now() - started);
  } catch (error) {
    transaction.abandon();
    for (const { writer } of files) {
      writer.destroy();
      await rm(writer.path, { force: true });
    }
    if (error instanceof StageFailure || error instanceof Cancelled) throw error;
    throw new StageFailure(
      progress.current,
      describeWriteFailure(error) ?? (error as Error).message,
    );
  } finally {
    transaction.abandon();
    entry.tables.clear();
  }
  const written: { order: number; rows: number; to: string }[] = [
    ...tables.map(({ writer, order }) => ({
      order,
      rows: writer.written,
      to: `table ${writer.table}`,
    })),
    ...files.map(({ writer, order, final }) => ({
      order,
      rows: writer.written,
      to: basename(final),
    })),
  ];
  for (const { order, rows: count, to } of written) {
    const log: LogLine = {
      stage: 'Joint',
      event: 'End',
      status: 'Process',
      actionOrder: order,
      message: `${count} rows`,
    };
    recorder.transition(request, {
      log,
      appLog: { type: 'INFO', message: `Wrote ${count} rows to ${to}` },
    });
  }
  progress.leave('Joint', 'Joint finished');
}
