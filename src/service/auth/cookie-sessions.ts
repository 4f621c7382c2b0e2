import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';

// The SESSIONID cookies of Part C (contract section 4), which must hold on every gateway of
// one PostgreSQL at once (contract section 11), without a write to the database on each
// key-authenticated call (each mints one) nor a read on each cookie-authenticated one (the
// cached reads check cookies synchronously, before Fastify's request cycle).
//
// So a cookie carries what any gateway needs to judge it: `<stamp>.<id>.<signature>`, the
// stamp the time it was issued or last set again (ms, base 36), the id the session's own
// (a UUID), the signature an HMAC of both under a secret the gateways share through the
// store (api-access.ts). A gateway remembers the cookies it has judged and when it last saw
// each used, which is the session's idle time as before; one it has not seen is judged by its
// stamp. A cookie used RESTAMP_AFTER_MS after its stamp is set again with a new stamp, as the
// coordinator client's cookie jar takes it (interfaces.md), so that its idle time on a gateway
// that never saw it errs by at most that much, shorter, never longer. Sessions ended early
// (sign-out) are kept by id in the store until no cookie of theirs could still be live.

const SIGNATURE_LENGTH = 22; // base64url characters: 132 bits of the HMAC-SHA256
const SIGNATURE = new RegExp(`^[A-Za-z0-9_-]{${SIGNATURE_LENGTH}}$`);
const STAMP = /^[0-9a-z]{1,11}$/;
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Seen {
  lastUsed: number;
  readonly stamp: number;
  readonly id: string;
}

export interface CookieRules {
  readonly idleMs: number;
  readonly touchEveryMs: number;
  readonly restampAfterMs: number;
  readonly maxRemembered: number;
}

export class CookieSessions {
  private readonly seen = new Map<string, Seen>();
  /** Sessions ended early, by id, with when they ended. */
  private readonly ended = new Map<string, number>();

  constructor(
    private secret: string,
    private readonly rules: CookieRules,
  ) {}

  /** Signs with another secret: every cookie signed with the old one stops. */
  setSecret(secret: string): void {
    if (secret === this.secret) return;
    this.secret = secret;
    this.seen.clear();
  }

  /** Forgets every cookie judged so far (the shared key was disabled, say). */
  forgetAll(): void {
    this.seen.clear();
  }

  /** A new session's cookie, stamped `now`. */
  open(now: number): string {
    return this.remember(randomUUID(), now);
  }

  /** True when the cookie names a live session; using it restarts its idle time. */
  touch(cookie: string, now: number): boolean {
    let seen = this.seen.get(cookie);
    if (seen === undefined) {
      const judged = this.judge(cookie);
      if (judged === undefined) return false;
      seen = judged;
    } else if (now - seen.lastUsed >= 0 && now - seen.lastUsed < this.rules.touchEveryMs) {
      // Used again within the second: its time and place stand (a second is nothing beside
      // the idle limit), so a busy client's calls do not each delete and re-insert it.
      return true;
    }
    if (now - seen.lastUsed > this.rules.idleMs) {
      this.seen.delete(cookie);
      return false;
    }
    // Re-inserting keeps the Map in least-recently-used order for the cap.
    this.seen.delete(cookie);
    seen.lastUsed = now;
    this.insert(cookie, seen);
    return true;
  }

  /** True when a live cookie is due to be set again with a new stamp (restamped). */
  due(cookie: string, now: number): boolean {
    return this.dueSeen(cookie, now) !== undefined;
  }

  /** The same session's cookie stamped `now`, when the one sent is due; else undefined. */
  restamped(cookie: string, now: number): string | undefined {
    const seen = this.dueSeen(cookie, now);
    return seen === undefined ? undefined : this.remember(seen.id, now);
  }

  private dueSeen(cookie: string, now: number): Seen | undefined {
    const seen = this.seen.get(cookie);
    return seen !== undefined && now - seen.stamp > this.rules.restampAfterMs ? seen : undefined;
  }

  /** Ends the cookie's session; its id, for the other gateways, or undefined when unknown. */
  end(cookie: string, now: number): string | undefined {
    const id = this.judge(cookie)?.id;
    if (id !== undefined) this.endIds([[id, now]]);
    return id;
  }

  /** Sessions ended (here or on another gateway): none of their cookies is live any more. */
  endIds(ids: Iterable<readonly [id: string, endedAt: number]>): void {
    let added = false;
    for (const [id, endedAt] of ids) {
      if (this.ended.has(id)) continue;
      this.ended.set(id, endedAt);
      added = true;
    }
    if (!added) return;
    for (const [cookie, seen] of this.seen) if (this.ended.has(seen.id)) this.seen.delete(cookie);
  }

  /** Lets go of the ends of sessions whose every cookie has run out since. */
  pruneEnded(before: number): void {
    for (const [id, endedAt] of this.ended) if (endedAt < before) this.ended.delete(id);
  }

  private sign(signed: string): string {
    return createHmac('sha256', this.secret)
      .update(signed)
      .digest('base64url')
      .slice(0, SIGNATURE_LENGTH);
  }

  /** The session a cookie not seen here names, when it is well formed, signed and not ended. */
  private judge(cookie: string): Seen | undefined {
    const parts = cookie.split('.');
    if (parts.length !== 3) return undefined;
    const [stampText, id, signature] = parts as [string, string, string];
    if (!STAMP.test(stampText) || !ID.test(id) || !SIGNATURE.test(signature)) {
      return undefined;
    }
    const expected = Buffer.from(this.sign(`${stampText}.${id}`));
    if (!timingSafeEqual(Buffer.from(signature), expected)) return undefined;
    if (this.ended.has(id)) return undefined;
    const stamp = parseInt(stampText, 36);
    return { lastUsed: stamp, stamp, id };
  }

  /** The session's cookie stamped `now`, remembered as just used. */
  private remember(id: string, now: number): string {
    const signed = `${now.toString(36)}.${id}`;
    const cookie = `${signed}.${this.sign(signed)}`;
    this.insert(cookie, { lastUsed: now, stamp: now, id });
    return cookie;
  }

  private insert(cookie: string, seen: Seen): void {
    if (this.seen.size >= this.rules.maxRemembered) {
      // The older half goes in one pass: evicting one at a time walks the Map's deleted
      // slots from its start on every call, which costs more as the churn grows.
      let drop = this.rules.maxRemembered / 2;
      for (const key of this.seen.keys()) {
        if (drop-- <= 0) break;
        this.seen.delete(key);
      }
    }
    this.seen.set(cookie, seen);
  }
}
