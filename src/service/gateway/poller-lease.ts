import { acquireLease, releaseLease } from '../db/leases.ts';
import type { Sql } from '../db/sql.ts';

// One poller per upstream across every gateway of one store (contract section 11): a
// poller runs its rounds only while it holds the lease `poller:<service id>`, renewed well
// within its time, so that a successor takes over within 15 s of the holder's death (the
// lease runs out within LEASE_TTL_MS, and the others try every LEASE_RENEW_MS). The index
// it keeps is in the store, so the successor goes on from where the holder was.

/** How long a poller's lease lasts unless renewed. */
export const LEASE_TTL_MS = 10_000;
/** How often a poller renews its lease, or tries to take it from a holder gone quiet. */
export const LEASE_RENEW_MS = 3_000;

/** The lease's times, shorter in tests. */
export interface LeaseTimings {
  readonly ttlMs?: number;
  readonly renewMs?: number;
  /** The clock the gateways share (epoch ms): the wall clock, whatever a test's `now` says. */
  readonly now?: () => number;
}

export class PollerLease {
  /** Held until then (epoch ms), as far as this process knows; 0 when not held. */
  private heldUntil = 0;
  private timer: NodeJS.Timeout | undefined;
  readonly name: string;

  constructor(
    private readonly sql: Sql,
    service: string,
    private readonly holder: string,
    private readonly timings: LeaseTimings = {},
    private readonly log: (message: string) => void = () => undefined,
  ) {
    this.name = `poller:${service}`;
  }

  private now(): number {
    return (this.timings.now ?? Date.now)();
  }

  /** Whether this poller holds the lease now. */
  get held(): boolean {
    return this.now() < this.heldUntil;
  }

  /**
   * Takes the lease, or renews it; true while this poller holds it. A store that does not
   * answer holds no lease for it: another gateway may take it meanwhile.
   */
  async take(): Promise<boolean> {
    const now = this.now();
    const ttl = this.timings.ttlMs ?? LEASE_TTL_MS;
    try {
      const taken = await acquireLease(this.sql, this.name, this.holder, now, ttl);
      this.heldUntil = taken ? now + ttl : 0;
    } catch (error) {
      // Said once as it is lost, not at every try while the store is gone.
      if (this.heldUntil !== 0)
        this.log(`${this.name}: lease not renewed: ${(error as Error).message}`);
      this.heldUntil = 0;
    }
    return this.held;
  }

  /** Calls `tick` now and every renewal period, until stopped. */
  every(tick: () => Promise<void>): void {
    this.stop();
    let ticking: Promise<void> | undefined;
    const run = () => {
      // A tick that outlasts the period (a slow store) is not doubled.
      ticking ??= tick().finally(() => {
        ticking = undefined;
      });
    };
    run();
    this.timer = setInterval(run, this.timings.renewMs ?? LEASE_RENEW_MS);
    this.timer.unref();
  }

  /** Stops renewing, the lease kept until it runs out (as a holder's death leaves it). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Gives the lease up at once (a clean stop), so that another takes it without waiting. */
  async release(): Promise<void> {
    this.stop();
    if (this.heldUntil === 0) return;
    this.heldUntil = 0;
    try {
      await releaseLease(this.sql, this.name, this.holder);
    } catch (error) {
      // It runs out by itself within its time.
      this.log(`${this.name}: lease not given up: ${(error as Error).message}`);
    }
  }
}
