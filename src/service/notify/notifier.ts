import { createHash } from 'node:crypto';
import { CONTRACT_WORDS } from '../../kit/status-semantics.ts';
import type { Clock } from '../clock.ts';
import { claimNotification, recordAttempt } from '../db/system/notifications.ts';
import type { EndedRequest } from '../engine/recorder.ts';
import type { Sql } from '../db/sql.ts';

/** States a notification goes out for (contract section 9: "ends in a failing state"). */
const FAILING = new Set(CONTRACT_WORDS.failed);

export interface NotifierOptions {
  /** Receivers (http or https URLs; Slack and Teams incoming webhooks work as they are). */
  readonly targets: readonly string[];
  /** Receivers of one service's notifications only (`notify:` in the services file), by id. */
  readonly serviceTargets?: Readonly<Record<string, readonly string[]>>;
  /** Milliseconds before each retry; one attempt more than there are delays. */
  readonly retryDelaysMs?: readonly number[];
  readonly timeoutMs?: number;
  /** The dashboard's public address, for links in messages; links are paths without it. */
  readonly publicUrl?: string | undefined;
  readonly log: (message: string, error?: unknown) => void;
}

/** The part of a receiver's URL that can be shown: its origin (a webhook's path is its key). */
export const shownTarget = (url: string): string => new URL(url).origin;

const hashOf = (url: string): string => createHash('sha256').update(url).digest('base64url');

/** Refuses a receiver that is not an http(s) URL, naming it without its secret path. */
export function checkTarget(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`--notify needs an http or https URL, not ${JSON.stringify(url.slice(0, 40))}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new Error(`--notify needs an http or https URL, not a ${parsed.protocol} one`);
  return url;
}

/**
 * Tells receivers about requests that end failing: a JSON POST whose `text` makes it a Slack
 * or Teams incoming-webhook message, retried with backoff, at most once per request, state
 * and receiver (the claim is a row in the shared store, so neither a restart nor another
 * gateway on the same database can repeat it). Sending never blocks the engine or a request:
 * the claim and the delivery run beside them and only log failures.
 */
export class Notifier {
  private readonly delays: readonly number[];
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly shared: Sql,
    private readonly clock: Clock,
    private readonly options: NotifierOptions,
  ) {
    this.delays = options.retryDelaysMs ?? [1000, 5000, 30_000];
  }

  /** Every receiver, each once. */
  get targets(): readonly string[] {
    return [
      ...new Set([
        ...this.options.targets,
        ...Object.values(this.options.serviceTargets ?? {}).flat(),
      ]),
    ];
  }

  /** The receivers of one service's notifications: --notify's and its own. */
  targetsOf(service: string): readonly string[] {
    const own = Object.hasOwn(this.options.serviceTargets ?? {}, service)
      ? (this.options.serviceTargets?.[service] ?? [])
      : [];
    return [...new Set([...this.options.targets, ...own])];
  }

  /** `failing`: the caller knows the status to be a failure (an upstream's own word). */
  requestEnded(
    ended: EndedRequest,
    service: string,
    pipelineName: string,
    failing = FAILING.has(ended.status),
  ): void {
    const targets = this.targetsOf(service);
    if (!failing || targets.length === 0) return;
    const link = `${this.options.publicUrl ?? ''}/requests/${encodeURIComponent(ended.requestId)}`;
    const payload = {
      text: `Request ${ended.requestId} of ${pipelineName || ended.pipelineId} ended ${ended.status} in ${ended.stage}: ${ended.message}`,
      service,
      requestId: ended.requestId,
      pipelineId: ended.pipelineId,
      name: pipelineName,
      status: ended.status,
      stage: ended.stage,
      message: ended.message,
      link,
    };
    for (const target of targets) this.sendOnce(target, ended.requestId, ended.status, payload);
  }

  /** Claims (subject, state, receiver) in the database, then delivers beside everything else. */
  private sendOnce(target: string, subject: string, status: string, payload: object): void {
    this.track(this.claimAndDeliver(target, subject, status, payload));
  }

  private async claimAndDeliver(
    target: string,
    subject: string,
    status: string,
    payload: object,
  ): Promise<void> {
    const key = { requestId: subject, status, targetHash: hashOf(target) };
    let claimed = false;
    try {
      claimed = await claimNotification(this.shared, {
        ...key,
        time: this.clock.now().toISOString(),
        target: shownTarget(target),
      });
    } catch (error) {
      this.options.log('a notification could not be recorded', error);
    }
    if (!claimed) return;
    const result = await this.deliver(target, payload);
    try {
      await recordAttempt(this.shared, key, result);
    } catch (error) {
      this.options.log('a notification outcome could not be recorded', error);
    }
  }

  /**
   * Sends one event that is not a request's end (a rule's: a pipeline suspended, an
   * upstream unreachable) to the service's receivers, at most once per subject and state.
   */
  event(service: string, subject: string, status: string, payload: object): void {
    for (const target of this.targetsOf(service)) this.sendOnce(target, subject, status, payload);
  }

  /** Sends a test message to every receiver and says how each went (the Settings page's button). */
  async test(userName: string): Promise<{ target: string; outcome: string; message: string }[]> {
    return Promise.all(
      this.targets.map(async (target) => {
        const result = await this.deliver(target, {
          text: `Test notification from the pipeline dashboard, sent by ${userName}.`,
        });
        return { target: shownTarget(target), outcome: result.outcome, message: result.message };
      }),
    );
  }

  /** Resolves when every notification under way has ended (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private track(work: Promise<void>): void {
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  private async deliver(
    target: string,
    payload: object,
  ): Promise<{ attempts: number; outcome: 'sent' | 'failed'; message: string }> {
    let message = '';
    for (let attempt = 1; attempt <= this.delays.length + 1; attempt++) {
      try {
        const response = await fetch(target, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(payload),
          redirect: 'manual',
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
        });
        await response.arrayBuffer();
        if (response.ok)
          return { attempts: attempt, outcome: 'sent', message: `HTTP ${response.status}` };
        message = `HTTP ${response.status}`;
      } catch (error) {
        const cause = error as Error & { cause?: { code?: string } };
        message =
          cause.name === 'TimeoutError'
            ? 'no answer in time'
            : (cause.cause?.code ?? cause.message);
      }
      const delay = this.delays[attempt - 1];
      if (delay === undefined) break;
      await new Promise((resolve) => setTimeout(resolve, delay).unref());
    }
    this.options.log(`notification to ${shownTarget(target)} failed: ${message}`);
    return { attempts: this.delays.length + 1, outcome: 'failed', message };
  }
}
