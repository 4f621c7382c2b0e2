import { describe, expect, it } from 'vitest';
import { CookieSessions, type CookieRules } from './cookie-sessions.ts';

// Two CookieSessions with one secret are two gateways of one store: each takes the cookies
// the other set, judged by their stamp, and neither takes one it could not have signed.

const MINUTE = 60_000;
const RULES: CookieRules = {
  idleMs: 30 * MINUTE,
  touchEveryMs: 1000,
  restampAfterMs: 5 * MINUTE,
  maxRemembered: 8,
};
const T0 = Date.UTC(2026, 10, 28, 9);

const gateways = (secret = 'shared-secret') =>
  [new CookieSessions(secret, RULES), new CookieSessions(secret, RULES)] as const;

describe('SESSIONID cookies', () => {
  it('hold on a gateway that did not set them, until their idle time runs out', () => {
    const [one, two] = gateways();
    const cookie = one.open(T0);
    expect(cookie).toMatch(/^[0-9a-z]+\.[0-9a-f-]{36}\.[A-Za-z0-9_-]{22}$/);
    expect(two.touch(cookie, T0 + 29 * MINUTE)).toBe(true);
    const [, three] = gateways();
    expect(three.touch(cookie, T0 + 31 * MINUTE)).toBe(false);
  });

  it('keep the idle time of their last use where they were used', () => {
    const [one] = gateways();
    const cookie = one.open(T0);
    expect(one.touch(cookie, T0 + 20 * MINUTE)).toBe(true);
    expect(one.touch(cookie, T0 + 45 * MINUTE)).toBe(true);
    expect(one.touch(cookie, T0 + 76 * MINUTE)).toBe(false);
  });

  it('are set again with a new stamp once used long after it, which other gateways take', () => {
    const [one, two] = gateways();
    const cookie = one.open(T0);
    expect(one.touch(cookie, T0 + 4 * MINUTE)).toBe(true);
    expect(one.due(cookie, T0 + 4 * MINUTE)).toBe(false);
    expect(one.restamped(cookie, T0 + 4 * MINUTE)).toBeUndefined();
    expect(one.touch(cookie, T0 + 25 * MINUTE)).toBe(true);
    expect(one.due(cookie, T0 + 25 * MINUTE)).toBe(true);
    const again = one.restamped(cookie, T0 + 25 * MINUTE);
    expect(again).toBeDefined();
    expect(again?.split('.')[1]).toBe(cookie.split('.')[1]);
    // 40 minutes after the first stamp, 15 after the new one.
    expect(two.touch(cookie, T0 + 40 * MINUTE)).toBe(false);
    expect(two.touch(again as string, T0 + 40 * MINUTE)).toBe(true);
  });

  it('refuse a cookie signed with another secret, altered, or of another shape', () => {
    const [one, two] = gateways();
    const other = new CookieSessions('another-secret', RULES);
    const cookie = one.open(T0);
    expect(other.touch(cookie, T0)).toBe(false);
    const [stamp, id, signature] = cookie.split('.') as [string, string, string];
    const later = (parseInt(stamp, 36) + 60 * MINUTE).toString(36);
    for (const forged of [
      `${later}.${id}.${signature}`,
      `${stamp}.${id.replace(/^./, id[0] === 'a' ? 'b' : 'a')}.${signature}`,
      `${stamp}.${id}.${signature.slice(0, -1)}é`,
      `${stamp}.${id}`,
      `${cookie}.x`,
      '00000000-0000-4000-8000-000000000000',
      '',
    ]) {
      expect(two.touch(forged, T0), forged).toBe(false);
    }
    expect(two.touch(cookie, T0)).toBe(true);
  });

  it('end on every gateway told of the end, in every stamp, and stay ended', () => {
    const [one, two] = gateways();
    const cookie = one.open(T0);
    expect(two.touch(cookie, T0 + 6 * MINUTE)).toBe(true);
    const again = two.restamped(cookie, T0 + 6 * MINUTE) as string;
    const id = one.end(cookie, T0 + 7 * MINUTE);
    expect(id).toBe(cookie.split('.')[1]);
    expect(one.touch(cookie, T0 + 7 * MINUTE)).toBe(false);
    expect(one.touch(again, T0 + 7 * MINUTE)).toBe(false);
    // The other gateway still takes it until it is told.
    expect(two.touch(again, T0 + 7 * MINUTE)).toBe(true);
    two.endIds([[id as string, T0 + 7 * MINUTE]]);
    expect(two.touch(again, T0 + 7 * MINUTE)).toBe(false);
    expect(two.touch(cookie, T0 + 7 * MINUTE)).toBe(false);
    expect(one.end('not a cookie', T0)).toBeUndefined();
  });

  it('end all at once with a new secret', () => {
    const [one] = gateways();
    const cookie = one.open(T0);
    one.setSecret('reissued');
    expect(one.touch(cookie, T0 + 1000)).toBe(false);
    expect(one.touch(one.open(T0), T0 + 1000)).toBe(true);
  });

  it('are judged again from their stamp once the remembered ones overflow', () => {
    const [one] = gateways();
    const first = one.open(T0);
    for (let i = 1; i <= RULES.maxRemembered; i++) one.open(T0 + i);
    // Forgotten, the first is judged by its stamp: still live, and not a new session.
    expect(one.touch(first, T0 + 10 * MINUTE)).toBe(true);
    expect(one.touch(first, T0 + 31 * MINUTE)).toBe(true);
  });
});
