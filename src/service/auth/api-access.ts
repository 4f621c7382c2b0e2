import { hash, randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { getSetting, setSetting } from '../db/system/settings.ts';
import type { Sql } from '../db/sql.ts';

const COOKIE_IDLE_MS = 30 * 60 * 1000;
/** How often a gateway on PostgreSQL reads the API settings again (watch). */
const SETTINGS_REFRESH_MS = 2_000;
// Each key-authenticated call without a cookie mints one; the cap keeps a flood of such
// calls from growing memory without bound (the least recently used go first).
const MAX_COOKIE_SESSIONS = 10_000;
/** A cookie session's last use is written down at most this often (touchCookieSession). */
const TOUCH_EVERY_MS = 1000;

// Every key-authenticated call digests the key it sent, with the one-shot hash and into a
// hex string: a Buffer per call (made in C++, its memory tracked apart by the garbage
// collector) and timingSafeEqual took twice the time in the service's profile under load
// (docs/throughput.md).
const digest = (value: string): string => hash('sha256', value, 'hex');

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

/**
 * The pipeline API setting, its key and the SESSIONID cookie sessions (contract section 4).
 * Cookie sessions live in memory: after a restart a client presents its key again.
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
  private readonly cookies = new Map<string, number>();

  private constructor(
    private readonly sql: Sql,
    private readonly clock: Clock,
  ) {}

  static async load(sql: Sql, clock: Clock): Promise<ApiAccess> {
    const access = new ApiAccess(sql, clock);
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

  /** Reads the settings again (another gateway may have changed them). */
  async refresh(): Promise<void> {
    const [enabled, shared, key] = await Promise.all([
      getSetting(this.sql, 'apiEnabled'),
      getSetting(this.sql, 'sharedKeyEnabled'),
      getSetting(this.sql, 'apiKey'),
    ]);
    this.enabledValue = enabled === 'true';
    if (this.sharedKeyValue && shared === 'false') this.cookies.clear();
    this.sharedKeyValue = shared !== 'false';
    if (key !== this.keyValue) {
      // A key reissued elsewhere ends the cookies it minted here too.
      if (this.keyValue !== null) this.cookies.clear();
      this.keyValue = key;
      this.keyDigest = key ? digest(key) : null;
    }
  }

  get enabled(): boolean {
    return this.enabledValue;
  }

  /** False once an administrator disabled the shared key: personal tokens alone are accepted. */
  get sharedKeyEnabled(): boolean {
    return this.sharedKeyValue;
  }

  /** Enables or disables the shared key; disabling ends the cookies it minted at once. */
  async setSharedKeyEnabled(enabled: boolean): Promise<void> {
    await setSetting(this.sql, 'sharedKeyEnabled', String(enabled));
    this.sharedKeyValue = enabled;
    if (!enabled) this.cookies.clear();
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

  /** Replaces the key (or sets the given one); the old key and its cookies stop at once. */
  async reissue(key: string = newSecret()): Promise<string> {
    await setSetting(this.sql, 'apiKey', key);
    this.keyValue = key;
    this.keyDigest = digest(key);
    this.cookies.clear();
    return key;
  }

  /** Constant-time comparison; digests make the lengths equal. */
  keyMatches(candidate: string): boolean {
    return this.keyDigest !== null && sameDigest(digest(candidate), this.keyDigest);
  }

  /** Starts a cookie session and returns its id. */
  openCookieSession(): string {
    if (this.cookies.size >= MAX_COOKIE_SESSIONS) {
      // The older half goes in one pass: evicting one at a time walks the Map's deleted
      // slots from its start on every call, which costs more as the churn grows.
      let drop = MAX_COOKIE_SESSIONS / 2;
      for (const id of this.cookies.keys()) {
        if (drop-- <= 0) break;
        this.cookies.delete(id);
      }
    }
    // Every key-authenticated call without a cookie mints one, so this is on the hot path:
    // randomUUID draws from a pooled CSPRNG buffer, and ids live only in memory, unhashed.
    const id = randomUUID();
    this.cookies.set(id, this.clock.now().getTime());
    return id;
  }

  /** Ends a cookie session (sign-out); unknown ids are ignored. */
  endCookieSession(id: string): void {
    this.cookies.delete(id);
  }

  /** True when the cookie names a live session; using it restarts its idle time. */
  touchCookieSession(id: string): boolean {
    if (!this.sharedKeyValue) return false;
    const lastUsed = this.cookies.get(id);
    if (lastUsed === undefined) return false;
    const now = this.clock.now().getTime();
    if (now - lastUsed > COOKIE_IDLE_MS) {
      this.cookies.delete(id);
      return false;
    }
    // Used again within the second: its time and place stand (a second is nothing beside
    // the idle limit), so a busy client's calls do not each delete and re-insert it.
    if (now - lastUsed >= 0 && now - lastUsed < TOUCH_EVERY_MS) return true;
    // Re-inserting keeps the Map in least-recently-used order for the cap above.
    this.cookies.delete(id);
    this.cookies.set(id, now);
    return true;
  }
}
