import { mkdir, rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import * as cache from '../db/action/cache.ts';
import type { Db } from '../db/sqlite.ts';
import type { RequestRow } from '../db/status/requests.ts';
import type { JointAction } from '../pipelines/definition.ts';
import type { ActionLock } from './action-lock.ts';
import {
  Cancelled,
  checkpoint,
  describeWriteFailure,
  failureOf,
  StageFailure,
  type Running,
} from './failures.ts';
import { JointWriteFailure, type JointThread } from './joint-thread.ts';
import type { Progress } from './progress.ts';
import type { LogLine, RequestRecorder } from './recorder.ts';
import { rowCount, type EncodedRows } from './stage-wire.ts';
import { substitute } from './values.ts';

export const PARTIAL_PREFIX = '.partial-';
/**
 * Batches sent to the Joint's thread and not yet written: enough to keep it busy while the
 * next one comes, few enough that a cancel acts within a few batches.
 */
const IN_FLIGHT = 4;
// eslint-disable-next-line no-control-regex
const PLAIN_FILE_NAME = /^(?!.*\.\.)[^/\\\u0000-\u001f\u007f]{1,255}$/;

export interface JointContext {
  /** The main connection: reads whether a retry's tables are written already. */
  readonly action: Db;
  /** Writes the rows and commits, on a thread with its own connection. */
  readonly thread: JointThread;
  readonly lock: ActionLock;
  readonly recorder: RequestRecorder;
  readonly outbox: string;
  /** The action database changed (commit or rollback): cached answers are stale. */
  readonly touch: () => void;
  readonly log?: (message: string, error?: unknown) => void;
}

/**
 * The Joint's transaction on the action database, begun when the first batch comes (a
 * request still reading its input keeps nobody else from the database) and rolled back on
 * any failure. It holds the Joint's thread (one Joint at a time) from its begin to its end
 * and the ActionLock whenever it writes. When someone waits for the lock, it commits what
 * it has staged at the next batch and lets them write first (`giveWay`): the tables the
 * clients see change only in its last transaction, so they still get all of a request's
 * rows or none, and an operator waits for a batch, not for a whole ingest.
 */
class JointTransaction {
  private turn: (() => void) | undefined;
  private release: (() => void) | undefined;
  /** Begun, and not yet committed or rolled back: what it staged is on the thread. */
  private open = false;
  /** Its tables and files are opened: from here on it may give way between batches. */
  private writing = false;
  /** Committing or rolling back: it gives way no more. */
  private ending = false;
  private givingWay: Promise<void> | undefined;
  private failure: unknown;

  constructor(
    private readonly context: JointContext,
    private readonly entry: Running,
  ) {}

  get begun(): boolean {
    return this.turn !== undefined;
  }

  async begin(): Promise<void> {
    this.turn = await this.context.thread.take();
    this.release = await this.context.lock.acquire(this.entry.requestId, () => this.giveWaySoon());
    checkpoint(this.entry);
    this.open = true;
    await this.context.thread.begin();
  }

  /** Its tables and files are opened; writers that came meanwhile go first. */
  startWriting(): void {
    this.writing = true;
    if (this.context.lock.wanted) this.giveWaySoon();
  }

  private giveWaySoon(): void {
    if (!this.writing || this.ending || this.givingWay || this.failure !== undefined) return;
    this.givingWay = this.giveWay()
      .catch((error: unknown) => {
        this.failure = error;
      })
      .finally(() => {
        this.givingWay = undefined;
        // Someone who came while it took the lock back waits behind it.
        if (this.context.lock.wanted) this.giveWaySoon();
      });
  }

  /** Commits what is staged, lets the waiting writers have the lock, then begins again. */
  private async giveWay(): Promise<void> {
    const { lock, thread } = this.context;
    // After the batches already sent: the thread answers in order.
    await thread.pause();
    do {
      this.release?.();
      this.release = await lock.acquire(this.entry.requestId, () => this.giveWaySoon());
    } while (lock.wanted);
    await thread.resume();
  }

  /**
   * Sends a batch once the transaction is its own again; the result is the batch's answer,
   * wrapped so that the caller may send the next ones before it comes.
   */
  async send(rows: EncodedRows): Promise<{ sent: Promise<number> }> {
    for (;;) {
      if (this.failure !== undefined) throw this.failure;
      // Checked and sent in one go: nothing may reach the thread between its pause and resume.
      if (!this.givingWay) return { sent: this.context.thread.rows(rows) };
      await this.givingWay;
    }
  }

  private async settle(): Promise<void> {
    this.ending = true;
    while (this.givingWay) await this.givingWay;
  }

  async commit(request: RequestRow): Promise<number[]> {
    await this.settle();
    if (this.failure !== undefined) throw this.failure;
    const written = await this.context.thread.commit(request.requestId, request.pipelineId);
    this.open = false;
    this.end();
    return written;
  }

  /** Rolls back what is open and gives the lock back; safe to call more than once. */
  async abandon(): Promise<void> {
    await this.settle();
    if (this.open) {
      this.open = false;
      try {
        await this.context.thread.rollback();
      } catch (error) {
        // A thread that stopped took its connection, and the open transaction, with it.
        this.context.log?.('the Joint could not roll back', error);
      }
    }
    this.end();
  }

  private end(): void {
    if (this.turn === undefined) return;
    this.context.touch();
    this.release?.();
    this.release = undefined;
    this.turn?.();
    this.turn = undefined;
  }
}

/** A failure of the thread's writes in the words the request shows. */
function jointFailure(error: unknown): unknown {
  if (!(error instanceof JointWriteFailure) || error.table === undefined) return error;
  if (describeWriteFailure(error)) return failureOf('Joint', error);
  return new StageFailure('Joint', `${error.table}: ${error.message}`);
}

/**
 * The Joint: writes every batch to each table action (inside one transaction) and file
 * action (beside its final name), then commits, with the marker that keeps a retry from
 * writing the tables again, and renames the files. The writes run on the Joint's thread;
 * this side keeps the lock, the request's log and the decision to commit.
 */
export async function writeJoint(
  context: JointContext,
  request: RequestRow,
  entry: Running,
  actions: readonly JointAction[],
  args: Record<string, string>,
  rows: AsyncIterable<EncodedRows>,
  progress: Progress,
): Promise<void> {
  const { requestId } = request;
  const { action, outbox, recorder, thread } = context;
  const tablesDone = cache.completion(action, requestId, 'JointTables') !== undefined;
  const files: { path: string; final: string; order: number }[] = [];
  const tables: { table: string; order: number }[] = [];
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
          await thread.table(spec.table);
        } catch (error) {
          throw new StageFailure('Joint', (error as Error).message);
        }
        tables.push({ table: spec.table.name, order: i + 1 });
      } else {
        const name = substitute(spec.file.name, args);
        if (!PLAIN_FILE_NAME.test(name)) {
          throw new StageFailure(
            'Joint',
            `Output file name ${JSON.stringify(name)} is not a plain file name.`,
          );
        }
        await mkdir(outbox, { recursive: true });
        const path = join(outbox, `${PARTIAL_PREFIX}${requestId}-${i}`);
        await thread.file(path, spec.file.format);
        files.push({ path, final: join(outbox, name), order: i + 1 });
      }
    }
  };
  const start = async (): Promise<void> => {
    if (!transaction.begun) await transaction.begin();
    if (!entered) {
      await enter();
      transaction.startWriting();
    }
  };
  let written: number[];
  try {
    checkpoint(entry);
    const inFlight: { sent: Promise<number>; rows: number }[] = [];
    const settleOne = async (): Promise<void> => {
      const { sent, rows: written } = inFlight.shift() as (typeof inFlight)[number];
      progress.spend('Joint', await sent);
      progress.count('Joint', written);
    };
    for await (const batch of rows) {
      checkpoint(entry);
      await start();
      // Counted before sending: the batch's buffers are transferred to the thread.
      const count = rowCount(batch);
      const { sent } = await transaction.send(batch);
      // Awaited in order below; a failure must not count as unhandled meanwhile.
      sent.catch(() => undefined);
      inFlight.push({ sent, rows: count });
      if (inFlight.length >= IN_FLIGHT) await settleOne();
    }
    while (inFlight.length > 0) await settleOne();
    checkpoint(entry);
    await start();
    const started = performance.now();
    written = await transaction.commit(request);
    for (const file of files) await rename(file.path, file.final);
    progress.spend('Joint', performance.now() - started);
  } catch (caught) {
    const error = jointFailure(caught);
    await transaction.abandon();
    // The thread removed them in its rollback, unless it had stopped.
    for (const { path } of files) await rm(path, { force: true });
    if (error instanceof Cancelled) throw error;
    throw failureOf(progress.current, error);
  } finally {
    await transaction.abandon();
    entry.tables.clear();
  }
  const ends = [
    ...tables.map(({ table, order }) => ({ order, to: `table ${table}` })),
    ...files.map(({ order, final }) => ({ order, to: basename(final) })),
  ];
  for (const [i, { order, to }] of ends.entries()) {
    const count = written[i] ?? 0;
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
