import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, describe, expect, it } from 'vitest';
import { ErrorCode, HttpError, upstreamSentence, type UpstreamCause } from '../../kit/index.ts';
import { currentService, setCurrentService } from '../core/current-service.ts';
import { describeError } from './describe-error.ts';
import { i18n } from '../i18n/index.ts';
import { readUpstreamMessage } from './upstream-message.ts';
import { failureText, WhatFailed } from './what-failed.tsx';

await i18n.loadLanguages('ja');

// The gateway writes its sentences from their cause (kit/upstream-failure.ts, used by
// src/service/gateway/upstream.ts); e2e/service-down.spec.ts checks the real server's
// against the page.
const NAME = 'Tokyo prod';

/** One cause of every kind, with the code the gateway answers it under. */
const CAUSES: readonly (readonly [UpstreamCause, number])[] = [
  [{ kind: 'unreachable', error: 'ECONNREFUSED' }, ErrorCode.UpstreamFailed],
  [{ kind: 'unreachable', error: 'connect ECONNREFUSED 127.0.0.1:9 (x)' }, 5002],
  [{ kind: 'timeout', seconds: 2.5 }, ErrorCode.UpstreamTimeout],
  [{ kind: 'midway' }, 5004],
  [{ kind: 'failed', httpStatus: 500, words: 'データベースに接続できません' }, 5002],
  [{ kind: 'failed', httpStatus: 503, words: '' }, 5002],
  [{ kind: 'failed', httpStatus: null, words: 'Disk full.' }, 5002],
  [{ kind: 'failed', httpStatus: null, words: '' }, 5002],
  [{ kind: 'keyRefused', httpStatus: 401, words: 'Invalid key' }, 5002],
  [{ kind: 'keyRefused', httpStatus: 403, words: '' }, 5002],
  [{ kind: 'busy', httpStatus: 503, attempts: 3, words: 'Try later' }, 5002],
  [{ kind: 'busy', httpStatus: 429, attempts: 1, words: '' }, 5002],
  [{ kind: 'redirect', httpStatus: 302, location: 'https://sso.example/login' }, 5002],
  [{ kind: 'redirect', httpStatus: 301, location: '' }, 5002],
  [{ kind: 'tooLarge', mebibytes: 300, declared: true, boundMebibytes: 256 }, 5002],
  [{ kind: 'tooLarge', mebibytes: 256.1, declared: false, boundMebibytes: 256 }, 5002],
  [
    { kind: 'valueTooLarge', element: 'Message', characters: 1048577, boundCharacters: 1048576 },
    5002,
  ],
  // An element's name is the vendor's: matched as written, whatever it holds.
  [{ kind: 'valueTooLarge', element: 'Cell @name', characters: 1001, boundCharacters: 1000 }, 5002],
  [{ kind: 'unreadableXml', detail: 'Unexpected close tag' }, 5002],
  [{ kind: 'notXml', start: 'Bad gateway' }, 5002],
  [{ kind: 'notXml', start: '' }, 5002],
];

describe('readUpstreamMessage', () => {
  it('takes the cause the server gave in data, whatever the message reads like', () => {
    const cause: UpstreamCause = { kind: 'unreachable', error: 'ECONNREFUSED' };
    expect(readUpstreamMessage(upstreamSentence(NAME, cause), NAME, { cause })).toEqual(cause);
    expect(readUpstreamMessage('anything', NAME, { cause: { kind: 'midway' } })).toEqual({
      kind: 'midway',
    });
  });

  it('shows a message of the services list without a cause verbatim, even one imitating ours', () => {
    // A vendor that writes our sentence in its own failure: the server gave no cause.
    const mimic = 'Service Tokyo prod cannot be reached (ECONNREFUSED).';
    expect(readUpstreamMessage(mimic, NAME, { cause: undefined })).toEqual({
      kind: 'said',
      words: mimic,
    });
    // An error answer without a code is not read either.
    expect(readUpstreamMessage(mimic, NAME, { code: undefined })).toEqual({
      kind: 'said',
      words: mimic,
    });
  });

  it('reads every sentence of the gateway back from an error answer, under its own code', () => {
    for (const [cause, code] of CAUSES) {
      expect(readUpstreamMessage(upstreamSentence(NAME, cause), NAME, { code })).toEqual(cause);
      // A name is matched as written, not as a pattern.
      const odd = 'T.kyo (prod)*';
      expect(readUpstreamMessage(upstreamSentence(odd, cause), odd, { code })).toEqual(cause);
    }
  });

  it('reads a sentence only under the code the gateway gives it', () => {
    const timeout = upstreamSentence(NAME, { kind: 'timeout', seconds: 3 });
    expect(readUpstreamMessage(timeout, NAME, { code: ErrorCode.UpstreamFailed })).toEqual({
      kind: 'said',
      words: timeout,
    });
    // A vendor's refusal passed on under its own code, even one that reads like ours.
    const mimic = 'Service Tokyo prod cannot be reached (ECONNREFUSED).';
    expect(readUpstreamMessage(mimic, NAME, { code: ErrorCode.BadParameter })).toEqual({
      kind: 'said',
      words: mimic,
    });
    // "Refused" sentences come under the codes vendors' own refusals come under: words.
    const refused = upstreamSentence(NAME, { kind: 'refused', httpStatus: 418 });
    expect(readUpstreamMessage(refused, NAME, { code: ErrorCode.BadParameter })).toEqual({
      kind: 'said',
      words: refused,
    });
  });

  it('leaves sentences about another service, and other words, as they are', () => {
    expect(
      readUpstreamMessage('Service Osaka cannot be reached (ECONNREFUSED).', NAME, { code: 5002 }),
    ).toEqual({ kind: 'said', words: 'Service Osaka cannot be reached (ECONNREFUSED).' });
    expect(readUpstreamMessage('Request is already running', NAME, { code: 5002 })).toEqual({
      kind: 'said',
      words: 'Request is already running',
    });
    expect(
      readUpstreamMessage('Service Tokyo cannot be reached (E).', 'T.kyo', { code: 5002 }),
    ).toEqual({ kind: 'said', words: 'Service Tokyo cannot be reached (E).' });
  });
});

describe('WhatFailed', () => {
  afterAll(() => i18n.changeLanguage('en'));
  const render = (message: string, code: number) =>
    renderToStaticMarkup(<WhatFailed message={message} name={NAME} code={code} />);
  const listed = (message: string, cause: UpstreamCause | undefined) =>
    renderToStaticMarkup(<WhatFailed message={message} name={NAME} cause={cause} />);
  /** The markup's text, what the service or its connection wrote taken out. */
  const ours = (html: string) =>
    html
      .replace(/<span data-testid="[^"]+" translate="no"[^>]*>[^<]*<\/span>/g, ' ')
      .replace(/<[^>]*>/g, '')
      .replace(/&[a-z]+;/g, ' ');

  it('words the gateway’s sentence in the language shown, its cause kept as written', async () => {
    const cause: UpstreamCause = { kind: 'unreachable', error: 'ECONNREFUSED' };
    const message = upstreamSentence(NAME, cause);
    await i18n.changeLanguage('en');
    const en =
      '<span data-kind="unreachable">Cause: <span data-testid="failure-cause" translate="no" class="font-mono text-xs">ECONNREFUSED</span></span>';
    expect(listed(message, cause)).toBe(en);
    expect(render(message, 5002)).toBe(en);
    await i18n.changeLanguage('ja');
    const ja = listed(message, cause);
    expect(ja).toContain('原因：<span data-testid="failure-cause"');
    expect(ja).not.toContain('cannot be reached');
    expect(render('Service Tokyo prod did not answer within 3 s.', 5004)).toContain(
      '3 秒以内に応答がありませんでした。',
    );
  });

  it('leaves no English of ours in Japanese, whatever the cause', async () => {
    await i18n.changeLanguage('ja');
    for (const [cause] of CAUSES) {
      const html = listed(upstreamSentence(NAME, cause), cause);
      expect(html).toContain(`data-kind="${cause.kind}"`);
      // Half-width words the Japanese keeps: HTTP, MiB, XML, APIキー, the option's name.
      const left = ours(html)
        .replace(/HTTP|MiB|XML|API|--upstream-max-value-mb|--upstream-max-mb/g, ' ')
        .match(/[A-Za-z]{2,}/g);
      expect(left, JSON.stringify(cause)).toBeNull();
    }
  });

  it('says in plain text (a title) what it shows', async () => {
    for (const language of ['en', 'ja']) {
      await i18n.changeLanguage(language);
      for (const [cause] of CAUSES) {
        const props = { message: upstreamSentence(NAME, cause), name: NAME, cause };
        const shown = renderToStaticMarkup(<WhatFailed {...props} />)
          .replace(/<span class="block">/g, ' ')
          .replace(/<[^>]*>/g, '')
          .replaceAll('&#x27;', "'")
          .replaceAll('&amp;', '&');
        expect(failureText(i18n.t, props)).toBe(shown);
      }
    }
  });

  it('shows the service’s own words verbatim, as text', async () => {
    await i18n.changeLanguage('en');
    expect(render('Service Tokyo prod failed (HTTP 500): <b>down</b>', 5002)).toBe(
      '<span data-kind="failed">It answered with a failure (HTTP 500).<span class="block">What it said: <span data-testid="service-words" translate="no" class="font-mono text-xs">&lt;b&gt;down&lt;/b&gt;</span></span></span>',
    );
    const words = 'Busy & <i>tired</i> {{name}} $t(down.title)';
    const html = listed(words, undefined);
    expect(html).toContain('What failed: <span data-testid="service-words"');
    expect(html).toContain('Busy &amp; &lt;i&gt;tired&lt;/i&gt; {{name}} $t(down.title)');
  });

  it('shows a vendor’s message imitating our sentence verbatim when the server gave no cause', async () => {
    await i18n.changeLanguage('ja');
    const mimic = 'Service Tokyo prod cannot be reached (ECONNREFUSED).';
    const html = listed(mimic, undefined);
    expect(html).toContain('data-kind="said"');
    expect(html).toContain(
      `エラーの内容：<span data-testid="service-words" translate="no" class="font-mono text-xs">${mimic}</span>`,
    );
    expect(html).not.toContain('failure-cause');
  });
});

describe('describeError (an action’s outcome, as text)', () => {
  it('words our server’s sentence in the reader’s language and keeps a vendor’s refusal as written', async () => {
    setCurrentService({ ...currentService(), name: NAME });
    await i18n.changeLanguage('ja');
    const sentence = upstreamSentence(NAME, { kind: 'unreachable', error: 'ECONNREFUSED' });
    const ours = new HttpError(502, 'POST', '/x', ErrorCode.UpstreamFailed, sentence, '');
    const { message } = describeError(ours, i18n.t);
    expect(message).toContain('ECONNREFUSED');
    expect(message).not.toContain('cannot be reached');
    expect(message).toBe(failureText(i18n.t, { message: sentence, name: NAME, code: 5002 }));
    // A refusal in the vendor's own words, under a code that is not an upstream failure.
    const theirs = new HttpError(409, 'POST', '/x', 1301, 'Request is not in Error.', '');
    expect(describeError(theirs, i18n.t).message).toBe('Request is not in Error.');
  });
});
