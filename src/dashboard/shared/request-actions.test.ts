import { describe, expect, it, vi } from 'vitest';
import { i18n } from '../i18n/index.ts';

// Japanese loads on demand, as in the browser.
await i18n.loadLanguages('ja');

// auth.ts and services.ts read the browser's storage as they load; the function under test
// takes the role's refusal as a parameter, so neither is needed here.
vi.mock('../core/auth.ts', () => ({}));
vi.mock('./services.ts', () => ({}));
const { actionReasons } = await import('./request-actions.ts');

const allowed = () => undefined;
const t = i18n.getFixedT('en', 'actions');
const { CONTRACT_STATUSES, VENDOR_DEFAULT_STATUSES } = await import('../../kit/index.ts');
const ours = (status: string) => actionReasons(allowed, status, CONTRACT_STATUSES, t, 'en');
/** A vendor whose failures say Abort, cancels what waits or runs, and refused one retry. */
const kanto = {
  ...VENDOR_DEFAULT_STATUSES,
  failed: ['Error', 'Abort'],
  waiting: ['Wait'],
  running: ['Running'],
  final: ['Finish', 'Error', 'Abort', 'Cancel'],
  retryable: ['Error', 'Abort', 'Cancel'],
  cancellable: ['Wait', 'Running'],
  from: 'configured' as const,
  learned: [
    { action: 'retry' as const, status: 'Cancel', message: 'Cancelled requests stay so', at: '' },
  ],
};

describe('actionReasons', () => {
  it('follows our contract for the embedded service', () => {
    expect(ours('Finish').retry).toBeDefined();
    expect(ours('Process').retry).toBeDefined();
    expect(ours('Error').retry).toBeUndefined();
    expect(ours('Error').cancel).toBeDefined();
    expect(ours('Wait').cancel).toBeUndefined();
    expect(ours('Wait').retryAllowed).toBe('no');
    expect(ours('Wait').cancelAllowed).toBe('yes');
  });

  it('names the status without an article before it, and what the service allows', () => {
    expect(ours('Process').retry).toBe(
      'A request in Process cannot be retried; only Error and Stop can.',
    );
    expect(ours('Error').cancel).toBe('A request in Error has ended: there is nothing to cancel.');
  });

  it('gives the role’s refusal first', () => {
    const refused = (operation: string) => `may not ${operation}`;
    expect(actionReasons(refused, 'Error', CONTRACT_STATUSES, t, 'en')).toMatchObject({
      retry: 'may not requestretry',
      cancel: 'may not requestcancel',
    });
  });

  it('offers both for a status the service does not classify, which it then decides', () => {
    expect(ours('Abort')).toEqual({
      retry: undefined,
      cancel: undefined,
      retryAllowed: 'unknown',
      cancelAllowed: 'unknown',
    });
  });

  it("follows a vendor's own words, and what it refused before", () => {
    const vendor = (status: string) => actionReasons(allowed, status, kanto, t, 'en');
    expect(vendor('Abort')).toMatchObject({ retry: undefined, retryAllowed: 'yes' });
    expect(vendor('Abort').cancel).toBe(
      'A request in Abort has ended: there is nothing to cancel.',
    );
    expect(vendor('Running')).toMatchObject({ cancel: undefined, cancelAllowed: 'yes' });
    expect(vendor('Finish').retry).toBe(
      'A request in Finish cannot be retried; only Error, Abort, and Cancel can.',
    );
    expect(vendor('Cancel').retry).toBe(
      'The service refused before to retry a request in Cancel: Cancelled requests stay so',
    );
  });

  it('says it in Japanese too', () => {
    const ja = i18n.getFixedT('ja', 'actions');
    const reason = actionReasons(allowed, 'Process', CONTRACT_STATUSES, ja, 'ja').retry;
    expect(reason).toContain('再実行できません');
    expect(reason).toContain('Error、Stop');
  });
});
