import type { Clock } from '../clock.ts';
import { countTry, forgetTries } from '../db/system/sign-in-tries.ts';
import type { Sql } from '../db/sql.ts';
import { ApiError, CommonCode } from '../errors.ts';

/*
 * One guessing limit (issue 39, item 7): every way of proving who one is (Part A's and
 * Part B's sign-in, single sign-on's handoff) counts its tries against the same two limits,
 * kept in the shared store so that every gateway of one store counts together: per client
 * address (20 a minute by default), and, more slowly, per account name whatever the address
 * (60 an hour), so that guesses spread over many addresses still end. Past either, the call
 * is refused with 429 and `Retry-After`: the seconds until its window ends.
 */

export interface TryLimit {
  readonly max: number;
  /** The window's length, in milliseconds. */
  readonly timeWindow: number;
}

export const DEFAULT_ADDRESS_LIMIT: TryLimit = { max: 20, timeWindow: 60_000 };
export const DEFAULT_ACCOUNT_LIMIT: TryLimit = { max: 60, timeWindow: 3_600_000 };

/** How often, at most, windows long past are swept from the store. */
const SWEEP_EVERY_MS = 60_000;

export class GuessingLimit {
  private sweptAt = 0;

  constructor(
    private readonly sql: Sql,
    private readonly clock: Clock,
    private readonly perAddress: TryLimit = DEFAULT_ADDRESS_LIMIT,
    private readonly perAccount: TryLimit = DEFAULT_ACCOUNT_LIMIT,
  ) {}

  /**
   * Counts one try from `address` (and for `account`, when the try names one) and refuses it
   * with 429 once either is past its limit. Every try counts, a successful one too: a limit
   * of guesses cannot tell a guess from a typo.
   */
  async take(address: string, account?: string): Promise<void> {
    const now = this.clock.now().getTime();
    await this.sweep(now);
    await this.count(`address ${address}`, this.perAddress, now, 'from this address');
    if (account !== undefined && account !== '')
      await this.count(
        // Names are unique regardless of case: so are their tries.
        `account ${account.toLowerCase()}`,
        this.perAccount,
        now,
        'for this account',
      );
  }

  private async count(key: string, limit: TryLimit, now: number, whose: string): Promise<void> {
    const windowStart = now - (now % limit.timeWindow);
    const tries = await countTry(this.sql, key, windowStart);
    if (tries <= limit.max) return;
    const seconds = Math.max(1, Math.ceil((windowStart + limit.timeWindow - now) / 1000));
    throw new ApiError(
      429,
      CommonCode.TooManyRequests,
      `Too many sign-in attempts ${whose}; try again in ${seconds} s.`,
      { 'retry-after': String(seconds) },
    );
  }

  private async sweep(now: number): Promise<void> {
    if (now - this.sweptAt < SWEEP_EVERY_MS) return;
    this.sweptAt = now;
    const longest = Math.max(this.perAddress.timeWindow, this.perAccount.timeWindow);
    await forgetTries(this.sql, now - 2 * longest);
  }
}
