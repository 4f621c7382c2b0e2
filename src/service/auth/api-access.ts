import { hash, randomBytes } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { getSetting, setSetting, settingOnce } from '../db/system/settings.ts';
import type { Sql } from '../db/sql.ts';
import { CookieSessions } from './cookie-sessions.ts';

const COOKIE_IDLE_MS = 30 * 60 * 1000;
/** How often a gateway on PostgreSQL reads the API settings again (watch). */
const SETTINGS_REFRESH_MS = 2_000;
// A gateway remembers the cookies it has checked, so that a busy script's calls are not each
// verified again; the cap keeps a flood of key-authenticated calls, each minting one, from
// growing memory without bound (the least recently used go first, and are verified again
// from their stamp if they come back).
const MAX_COOKIE_SESSIONS = 10_000;
/** A cookie session's last use is written down at most this often (touchCookieSession). */
const TOUCH_EVERY_MS = 1000;
/**
 * A cookie used this long after its stamp is set again with a new one: another gateway,
 * which has not seen its uses, judges its idle time by the stamp (see CookieSessions).
 */
const RESTAMP_AFTER_MS = 5 * 60 * 1000;
/** The setting that holds the secret cookies are signed with: never shown, never logged. */
const COOKIE_SECRET = 'apiCookieSecret';

// Every key-authenticated call digests the key it sent, with the one-shot hash and into a
// hex string: a Buffer per call (made in C++, its memory tracked apart by the garbage
// collector) and timingSafeEqual took twice the time in the service's profile under load
// (docs/throughput.md).
const digest = (value: string): string => hash('sha256', value, 'hex');

/** The shared key as work done later on its behalf names it: by its digest, never itself. */
export const keyCredential = (key: string): string => `key ${digest(key)}`;

/**
 * Whether two digests are equal, in a time that does not depend on where they differ: every
 * character is compared, whatever the first difference (both are 64 hex digits).
 */
function sameDigest(a: string, b: string): boolean {
  let differ = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) differ |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return differ === 0;
}

export const newSecret = (): string => randomBytes(32).toString('base64url');

/** How long a session ended early is remembered: past it, none of its cookies can be live. */
const ENDED_KEPT_MS = COOKIE_IDLE_MS + RESTAMP_AFTER_MS;

/**
 * The pipeline API setting, its key and the SESSIONID cookie sessions (contract section 4).
 * Cookies are signed (cookie-sessions.ts), so that any gateway of one store takes one that
 * another set, and one set before a restart still holds after it while it is not idle.
 *
 * The settings are read on every call, on the hot path, so they are held here as the store
 * last said: this process's own changes at once, another gateway's (on a shared PostgreSQL,
 * contract section 11) at the next `refresh`, which the app runs every few seconds there.
 */
export class ApiAccess {
  private enabledValue = false;
  private sharedKeyValue = true;
  private keyValue: string | null = null;
  private keyDigest: string | null = null;

  private constructor(
    private readonly sql: Sql,
    private readonly clock: Clock,
    private readonly cookies: CookieSessions,
  ) {}

  static async load(sql: Sql, clock: Clock): Promise<ApiAccess> {
    const secret = await settingOnce(sql, COOKIE_SECRET, newSecret);
    const access = new ApiAccess(
      sql,
      clock,
      new CookieSessions(secret, {
        idleMs: COOKIE_IDLE_MS,
        touchEveryMs: TOUCH_EVERY_MS,
        restampAfterMs: RESTAMP_AFTER_MS,
        maxRemembered: MAX_COOKIE_SESSIONS,
      }),
    );
    await access.refresh();
    return access;
  }

  /**
   * Reads the settings again every SETTINGS_REFRESH_MS (gateways on one PostgreSQL: another
   * may change them); returns the stop.
   */
  watch(log: { warn(object: object, message: string): void }): () => void {
    const timer = setInterval(
      () =>
        void this.refresh().catch((error: unknown) =>
          log.warn({ err: error }, 'API settings not read'),
        ),
      SETTINGS_REFRESH_MS,
    );
    timer.unref();
    return () => clearInterval(timer);
  }

  /**
   * Reads the settings and the sessions ended early again (another gateway may have changed
   * them): a key reissued or the shared key disabled elsewhere signs with a new secret, which
   * ends the cookies here too.
   */
  async refresh(): Promise<void> {
    const keptSince = this.clock.now().getTime() - ENDED_KEPT_MS;
    const [enabled, shared, key, secret, ended] = await Promise.all([
      getSetting(this.sql, 'apiEnabled'),
      getSetting(this.sql, 'sharedKeyEnabled'),
      getSetting(this.sql, 'apiKey'),
      getSetting(this.sql, COOKIE_SECRET),
      this.sql.all<{ ID: string; ENDED: number }>(
        'SELECT ID AS "ID", ENDED AS "ENDED" FROM API_COOKIE_END WHERE ENDED >= ?',
        [keptSince],
      ),
    ]);
    this.enabledValue = enabled === 'true';
    if (this.sharedKeyValue && shared === 'false') this.cookies.forgetAll();
    this.sharedKeyValue = shared !== 'false';
    if (key !== this.keyValue) {
      this.keyValue = key;
      this.keyDigest = key ? digest(key) : null;
    }
    if (secret !== null) this.cookies.setSecret(secret);
    this.cookies.pruneEnded(keptSince);
    this.cookies.endIds(ended.map((row) => [row.ID, Number(row.ENDED)] as const));
  }

  get enabled(): boolean {
    return this.enabledValue;
  }

  /** False once an administrator disabled the shared key: personal tokens alone are accepted. */
  get sharedKeyEnabled(): boolean {
    return this.sharedKeyValue;
  }

  /**
   * Enables or disables the shared key; disabling ends the cookies it minted at once, here
   * and, by a new secret, on the other gateways, for good (enabling it again revives none).
   */
  async setSharedKeyEnabled(enabled: boolean): Promise<void> {
    const secret = enabled ? undefined : newSecret();
    await this.sql.transaction(async (tx) => {
      await setSetting(tx, 'sharedKeyEnabled', String(enabled));
      if (secret !== undefined) await setSetting(tx, COOKIE_SECRET, secret);
    });
    this.sharedKeyValue = enabled;
    if (secret !== undefined) this.cookies.setSecret(secret);
  }

  get key(): string | null {
    return this.keyValue;
  }

  /**
   * Start-up: a key given by flag is used only when none exists yet, so an administrator's
   * reissue or disabling outlives every restart (contract section 4). The demo enables the
   * API on its first start. True when a given key was not used.
   */
  async provision(key: string | undefined, options: { readonly demo: boolean }): Promise<boolean> {
    if (this.key !== null) return key !== undefined;
    if (key !== undefined) await this.reissue(key);
    if (key !== undefined || options.demo) await this.setEnabled(true);
    return false;
  }

  /** Enables or disables the API; the first enabling issues a key. */
  async setEnabled(enabled: boolean): Promise<void> {
    if (enabled && !this.key) await this.reissue();
    await setSetting(this.sql, 'apiEnabled', String(enabled));
    this.enabledValue = enabled;
  }

  /**
   * Replaces the key (or sets the given one); the old key and its cookies stop at once, here
   * and, by the new secret beside the key, on the other gateways at their next refresh.
   */
  async reissue(key: string = newSecret()): Promise<string> {
    const secret = newSecret();
    await this.sql.transaction(async (tx) => {
      await setSetting(tx, 'apiKey', key);
      await setSetting(tx, COOKIE_SECRET, secret);
    });
    this.keyValue = key;
    this.keyDigest = digest(key);
    this.cookies.setSecret(secret);
    return key;
  }

  /** The key now in force as work done on its behalf names it (keyCredential). */
  keyCredential(): string | undefined {
    return this.keyDigest === null ? undefined : `key ${this.keyDigest}`;
  }

  /** Constant-time comparison; digests make the lengths equal. */
  keyMatches(candidate: string): boolean {
    return this.keyDigest !== null && sameDigest(digest(candidate), this.keyDigest);
  }

  /**
   * Starts a cookie session and returns its cookie. Every key-authenticated call without a
   * cookie mints one, so this is on the hot path: nothing is written to the store.
   */
  openCookieSession(): string {
    return this.cookies.open(this.clock.now().getTime());
  }

  /** Ends a cookie's session (sign-out), on every gateway of the store; unknown ones are ignored. */
  async endCookieSession(cookie: string): Promise<void> {
    const now = this.clock.now().getTime();
    const id = this.cookies.end(cookie, now);
    if (id === undefined) return;
    await this.sql.transaction(async (tx) => {
      await tx.run('DELETE FROM API_COOKIE_END WHERE ENDED < ?', [now - ENDED_KEPT_MS]);
      await tx.run(
        'INSERT INTO API_COOKIE_END (ID, ENDED) VALUES (?, ?) ON CONFLICT (ID) DO NOTHING',
        [id, now],
      );
    });
  }

  /** True when the cookie names a live session; using it restarts its idle time. */
  touchCookieSession(cookie: string): boolean {
    return this.sharedKeyValue && this.cookies.touch(cookie, this.clock.now().getTime());
  }

  /**
   * The cookie to set again in place of a live one sent, with a new stamp, when it is due
   * (cookie-sessions.ts); undefined while the one sent is fresh enough.
   */
  restampedCookie(cookie: string): string | undefined {
    return this.cookies.restamped(cookie, this.clock.now().getTime());
  }

  /** True when a live cookie sent would be set again (restampedCookie). */
  cookieDue(cookie: string): boolean {
    return this.cookies.due(cookie, this.clock.now().getTime());
  }
}
