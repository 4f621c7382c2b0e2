import type { RequestRow } from '../db/status/requests.ts';
import type { StageName } from '../db/system/pipelines.ts';
import type { RequestRecorder } from './recorder.ts';

const STAGE_ORDER: readonly StageName[] = ['Sensor', 'Filter', 'Joint'];

const TIME_OF: Record<StageName, 'sensorMs' | 'filterMs' | 'jointMs'> = {
  Sensor: 'sensorMs',
  Filter: 'filterMs',
  Joint: 'jointMs',
};

const ROWS_OF: Record<StageName, 'sensorRows' | 'filterKept' | 'jointRows'> = {
  Sensor: 'sensorRows',
  Filter: 'filterKept',
  Joint: 'jointRows',
};

/**
 * Counts of rows so far are written at most this often while rows stream (and always when
 * a stage ends or the request fails): a status write per batch would cost more than the
 * batch, and a reader polling requestdetail needs no finer grain.
 */
const ROWS_WRITE_MS = 500;

/**
 * Where a request is in its pass. Stages overlap while rows stream through, so the Stage
 * a client sees is the earliest one still unfinished; each stage's time is the time spent
 * in its own work.
 */
export class Progress {
  private readonly finished = new Set<StageName>();
  private readonly spent: Record<StageName, number> = { Sensor: 0, Filter: 0, Joint: 0 };
  /** Size of the input file, once the Sensor has looked at it. */
  bytes: number | undefined;
  /** Rows each stage has read, kept or written in this run; absent: not counted yet. */
  private readonly rows: Partial<Record<StageName, number>> = {};
  private readonly unsaved = new Set<StageName>();
  private savedAt = 0;

  constructor(
    private readonly recorder: RequestRecorder,
    readonly request: RequestRow,
    /** Completing caches after a failure: no status changes, no times, no logs of stages. */
    private readonly quiet = false,
  ) {}

  get current(): StageName {
    return STAGE_ORDER.find((s) => !this.finished.has(s)) ?? 'Joint';
  }

  skip(stage: StageName): void {
    this.finished.add(stage);
    if (!this.quiet)
      this.recorder.transition(this.request, {
        appLog: { type: 'INFO', message: `${stage} output taken from the action cache` },
      });
  }

  enter(stage: StageName, actions: readonly string[] = []): void {
    if (this.quiet) return;
    // A run starts its counts again: a retry's rows are not added to the failed attempt's.
    this.rows[stage] = 0;
    this.unsaved.add(stage);
    this.recorder.transition(this.request, {
      times: this.unsavedRows(),
      ...(stage === this.current ? { status: 'Process', stage } : {}),
      log: [
        { stage, event: 'Start', status: 'Process', message: `${stage} started` },
        ...actions.map((message, i) => ({
          stage,
          event: 'Start' as const,
          status: 'Process' as const,
          actionOrder: i + 1,
          message,
        })),
      ],
    });
  }

  spend(stage: StageName, ms: number): void {
    this.spent[stage] += ms;
  }

  /** More rows through a stage; written now and then while the request runs. */
  count(stage: StageName, rows: number): void {
    this.rows[stage] = (this.rows[stage] ?? 0) + rows;
    this.unsaved.add(stage);
    if (performance.now() - this.savedAt >= ROWS_WRITE_MS) this.flush();
  }

  /** A stage's final count, as it reports it at its end; written with the stage's end. */
  exact(stage: StageName, rows: number): void {
    this.rows[stage] = rows;
    this.unsaved.add(stage);
  }

  /** A stage's final count, written at once, even when quiet: it is a fact about the input. */
  record(stage: StageName, rows: number): void {
    this.exact(stage, rows);
    this.flush();
  }

  /** The counts not yet written, as columns of the request. */
  private unsavedRows(): Partial<Record<(typeof ROWS_OF)[StageName], number>> {
    const out: Partial<Record<(typeof ROWS_OF)[StageName], number>> = {};
    for (const stage of this.unsaved) out[ROWS_OF[stage]] = this.rows[stage] ?? 0;
    this.unsaved.clear();
    this.savedAt = performance.now();
    return out;
  }

  /** Writes the counts not yet written (a failure's last word on how far the rows got). */
  flush(): void {
    if (this.unsaved.size === 0) return;
    this.recorder.transition(this.request, { times: this.unsavedRows() });
  }

  leave(stage: StageName, message: string, actions = 0): void {
    this.finished.add(stage);
    if (this.quiet) return this.flush();
    const next = this.current;
    this.recorder.transition(this.request, {
      ...(next !== stage && !this.finished.has(next) ? { status: 'Process', stage: next } : {}),
      times: { ...this.unsavedRows(), [TIME_OF[stage]]: Math.round(this.spent[stage]) },
      log: [
        ...Array.from({ length: actions }, (_, i) => ({
          stage,
          event: 'End' as const,
          status: 'Process' as const,
          actionOrder: i + 1,
          message: '',
        })),
        {
          stage,
          event: 'End',
          status: 'Process',
          message: stage === 'Joint' ? message : `${stage} finished`,
        },
      ],
      ...(stage !== 'Joint' ? { appLog: { type: 'INFO', message } } : {}),
    });
  }
}
