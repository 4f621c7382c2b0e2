// At most so many calls at once to one upstream (contract section 12): a vendor's product
// may refuse more with 503 or 429, and one gateway's pollers and browsers must not be the
// crowd that brings it down. The bound lowers itself to what the upstream showed it takes.

export class CallLimiter {
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  private learned: number | undefined;

  constructor(private readonly configured: number) {}

  /** Calls allowed at once now: the configured bound, or less once the upstream refused. */
  get limit(): number {
    return Math.min(this.configured, this.learned ?? Number.POSITIVE_INFINITY);
  }

  /** The bound the upstream showed by refusing, if it did. */
  get learnedLimit(): number | undefined {
    return this.learned;
  }

  get active(): number {
    return this.inFlight;
  }

  async run<T>(call: () => Promise<T>): Promise<T> {
    while (this.inFlight >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    this.inFlight++;
    try {
      return await call();
    } finally {
      this.inFlight--;
      this.waiting.shift()?.();
    }
  }

  /** The upstream refused a call while `atOnce` were in flight (this one included). */
  refused(atOnce: number): void {
    if (atOnce > 1) this.learned = Math.min(this.learned ?? atOnce - 1, atOnce - 1);
  }

  /** Forgets what was learned (a new probe asks again). */
  reset(): void {
    this.learned = undefined;
    for (const wake of this.waiting.splice(0)) wake();
  }
}

/** Seconds to wait from a `Retry-After` (seconds or an HTTP date), or undefined. */
export function retryAfterMs(header: string | null, nowMs: number): number | undefined {
  if (header === null) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
