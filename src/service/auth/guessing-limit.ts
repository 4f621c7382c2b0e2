import type { Clock } from '../clock.ts';
import { countTry, forgetTries, triesIn } from '../db/system/sign-in-tries.ts';
import type { Sql } from '../db/sql.ts';
import { ApiError, CommonCode } from '../errors.ts';

/*
 * One guessing limit (issue 39, item 7): every way of proving who one is (Part A's and
 * Part B's sign-in, single sign-on's handoff) counts its tries against the same two limits,
 * kept in the shared store so that every gateway of one store counts together: every try per
 * client address (20 a minute by default), and, more slowly, the failed ones per account name
 * whatever the address (60 an hour), so that guesses spread over many addresses still end while
 * a robot that signs in often with its right password never locks itself out. Past either, the
 * call is refused with 429 and `Retry-After`: the seconds until its window ends.
 */

export interface TryLimit {
  readonly max: number;
  /** The window's length, in milliseconds. */
  readonly timeWindow: number;
}

export const DEFAULT_ADDRESS_LIMIT: TryLimit = { max: 20, timeWindow: 60_000 };
export const DEFAULT_ACCOUNT_LIMIT: TryLimit = { max: 60, timeWindow: 3_600_000 };

/** Names are unique regardless of case: so are their tries. */
const accountKey = (account: string): string => `account ${account.toLowerCase()}`;

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
   * Counts one try from `address` and refuses it with 429 once the address is past its limit,
   * or once `account` (when the try names one) has failed as often as its limit allows.
   * Every try counts for the address, a successful one too: a limit of guesses per address
   * cannot tell a guess from a typo.
   */
  async take(address: string, account?: string): Promise<void> {
    const now = this.clock.now().getTime();
    await this.sweep(now);
    const addressWindow = this.windowOf(this.perAddress, now);
    const tries = await countTry(this.sql, `address ${address}`, addressWindow);
    if (tries > this.perAddress.max)
      throw this.refusal(this.perAddress, addressWindow, now, 'from this address');
    if (account === undefined || account === '') return;
    const accountWindow = this.windowOf(this.perAccount, now);
    if ((await triesIn(this.sql, accountKey(account), accountWindow)) >= this.perAccount.max)
      throw this.refusal(this.perAccount, accountWindow, now, 'for this account');
  }

  /** Counts a failed try for `account` (a wrong password, an unknown name). */
  async failed(account: string): Promise<void> {
    const now = this.clock.now().getTime();
    await countTry(this.sql, accountKey(account), this.windowOf(this.perAccount, now));
  }

  private windowOf(limit: TryLimit, now: number): number {
    return now - (now % limit.timeWindow);
  }

  private refusal(limit: TryLimit, windowStart: number, now: number, whose: string): ApiError {
    const seconds = Math.max(1, Math.ceil((windowStart + limit.timeWindow - now) / 1000));
    return new ApiError(
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
