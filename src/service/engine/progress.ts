import type { RequestRow } from '../db/status/requests.ts';
import type { StageName } from '../db/system/pipelines.ts';
import type { RequestRecorder } from './recorder.ts';

const STAGE_ORDER: readonly StageName[] = ['Sensor', 'Filter', 'Joint'];

const TIME_OF: Record<StageName, 'sensorMs' | 'filterMs' | 'jointMs'> = {
  Sensor: 'sensorMs',
  Filter: 'filterMs',
  Joint: 'jointMs',
};

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
    this.recorder.transition(this.request, {
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

  leave(stage: StageName, message: string, actions = 0): void {
    this.finished.add(stage);
    if (this.quiet) return;
    const next = this.current;
    this.recorder.transition(this.request, {
      ...(next !== stage && !this.finished.has(next) ? { status: 'Process', stage: next } : {}),
      times: { [TIME_OF[stage]]: Math.round(this.spent[stage]) },
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
