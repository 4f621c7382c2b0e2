import { describe, expect, it, vi } from 'vitest';
import { i18n } from '../i18n/index.ts';

// Japanese loads on demand, as in the browser.
await i18n.loadLanguages('ja');

// auth.ts and services.ts read the browser's storage as they load; the function under test
// takes the role's refusal as a parameter, so neither is needed here.
vi.mock('../app/auth.ts', () => ({}));
vi.mock('./services.ts', () => ({}));
const { actionReasons } = await import('./request-actions.ts');

const allowed = () => undefined;
const t = i18n.getFixedT('en', 'actions');

describe('actionReasons', () => {
  it('follows our contract for the embedded service', () => {
    expect(actionReasons(allowed, 'Finish', true, t).retry).toBeDefined();
    expect(actionReasons(allowed, 'Process', true, t).retry).toBeDefined();
    expect(actionReasons(allowed, 'Error', true, t).retry).toBeUndefined();
    expect(actionReasons(allowed, 'Error', true, t).cancel).toBeDefined();
    expect(actionReasons(allowed, 'Wait', true, t).cancel).toBeUndefined();
  });

  it('names the status without an article before it', () => {
    expect(actionReasons(allowed, 'Error', true, t).cancel).toBe(
      'A request in Error cannot be cancelled; only Wait, Start and Process can.',
    );
    expect(actionReasons(allowed, 'Finish', true, t).retry).toBe(
      'A request in Finish cannot be retried; only Error and Stop can.',
    );
  });

  it('gives the role’s refusal first', () => {
    const refused = (operation: string) => `may not ${operation}`;
    expect(actionReasons(refused, 'Error', true, t)).toEqual({
      retry: 'may not requestretry',
      cancel: 'may not requestcancel',
    });
  });

  it('offers both for a status it does not know', () => {
    expect(actionReasons(allowed, 'Abort', true, t)).toEqual({
      retry: undefined,
      cancel: undefined,
    });
  });

  it('offers both for any status of an upstream, which decides', () => {
    expect(actionReasons(allowed, 'Finish', false, t)).toEqual({
      retry: undefined,
      cancel: undefined,
    });
  });

  it('says it in Japanese too', () => {
    const ja = i18n.getFixedT('ja', 'actions');
    expect(actionReasons(allowed, 'Error', true, ja).cancel).toContain('Error');
    expect(actionReasons(allowed, 'Error', true, ja).cancel).toContain('キャンセルできません');
  });
});
