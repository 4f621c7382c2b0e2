import type { Clock } from '../clock.ts';
import type { Db } from '../db/sqlite.ts';
import { listPipelines } from '../db/system/pipelines.ts';
import type { ServiceState } from '../gateway/directory.ts';
import type { Notifier } from './notifier.ts';

/** Which events beside failed requests are sent (docs/operations.md "Notifications"). */
export interface NotifyRules {
  /** A pipeline of the embedded service went from run to stop. */
  readonly suspended?: boolean;
  /** An upstream has been unreachable for this many minutes (once per outage). */
  readonly unreachableMinutes?: number | undefined;
}

const blank = { requestId: '', pipelineId: '', name: '', stage: '' };

/**
 * The optional rules. Pipelines are compared with what was seen last (the first look only
 * learns), so a suspension is told whoever made it (an operator, the API, a definition
 * file); an outage is told once it has lasted long enough, keyed by when it began.
 */
export class NotifyRuleWatcher {
  private runmodes: Map<string, string> | undefined;

  constructor(
    private readonly notifier: Notifier,
    private readonly rules: NotifyRules,
    private readonly clock: Clock,
    private readonly link: (path: string) => string,
  ) {}

  /** Looks at the embedded service's pipelines (a timer calls it). */
  checkPipelines(db: Db, service: string): void {
    if (!this.rules.suspended) return;
    const pipelines = listPipelines(db);
    const before = this.runmodes;
    this.runmodes = new Map(pipelines.map((p) => [p.id, p.runmode]));
    if (!before) return;
    for (const pipeline of pipelines) {
      if (pipeline.runmode !== 'stop' || before.get(pipeline.id) !== 'run') continue;
      this.notifier.event(service, `suspended:${pipeline.id}:${pipeline.updated}`, 'Suspended', {
        ...blank,
        text: `Pipeline ${pipeline.name} (${pipeline.id}) was suspended: its new requests wait.`,
        service,
        pipelineId: pipeline.id,
        name: pipeline.name,
        status: 'Suspended',
        message: 'suspended',
        link: this.link('/pipelines'),
      });
    }
  }

  /**
   * After each check of an upstream, with its state before that check: an outage that was
   * already under way and goes on is measured from its start.
   */
  upstreamChecked(state: ServiceState | undefined, ok: boolean): void {
    const minutes = this.rules.unreachableMinutes;
    if (minutes === undefined || ok || !state || state.reachable || state.since === null) return;
    const down = this.clock.now().getTime() - Date.parse(state.since);
    if (down < minutes * 60_000) return;
    this.notifier.event(state.id, `unreachable:${state.id}:${state.since}`, 'Unreachable', {
      ...blank,
      text: `Service ${state.name} (${state.id}) has been unreachable since ${state.since}: ${state.message ?? ''}`,
      service: state.id,
      status: 'Unreachable',
      message: state.message ?? '',
      link: this.link('/service-list'),
    });
  }
}
