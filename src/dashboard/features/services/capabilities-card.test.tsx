import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Capabilities, ServiceInfo } from '../../../kit/index.ts';
import { i18n } from '../../i18n/index.ts';
import { CapabilitiesCard } from './capabilities-card.tsx';

const service: ServiceInfo = {
  id: 'tokai',
  name: 'Tokai',
  label: '',
  color: '',
  embedded: false,
  reachable: true,
  version: '5.2.1',
  checkedAt: '',
  since: '',
  message: '',
  indexedAt: '',
  indexError: '',
  timeZone: '',
  utcOffsetMinutes: undefined,
  zoneName: '',
  capabilities: undefined,
};

const learnt: Capabilities = {
  pagesize: 'ignored',
  index: 'ignored',
  next: 'absent',
  total: 'absent',
  cap: undefined,
  probedAt: '2026-11-22T00:00:01.500Z',
  probeError: '',
  charset: 'shift_jis',
  charsetFrom: 'content-type',
  setsSessionId: true,
  concurrency: 2,
  concurrencyLimit: 2,
  largestAnswerBytes: 7_654_321,
  compressed: true,
  datesZone: '',
  zoneFrom: 'none',
  pollSeconds: 11.324,
  lastRoundMs: 2831,
};

const render = (c: Partial<Capabilities> = {}, zone: Partial<ServiceInfo> = {}) =>
  renderToStaticMarkup(
    <CapabilitiesCard
      service={{ ...service, ...zone }}
      capabilities={{ ...learnt, ...c }}
      instant={(iso) => `${iso.slice(0, 10)} UTC`}
    />,
  )
    // Text, as a reader reads it: tags out (inline code without a gap), the few entities
    // React writes back.
    .replace(/<\/?code[^>]*>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/\s+/g, ' ');

describe('CapabilitiesCard', () => {
  beforeAll(() => i18n.changeLanguage('en'));
  afterAll(() => i18n.changeLanguage('en'));

  it('tells what each list’s own answers showed, and none where nothing was learnt', () => {
    const lists: Capabilities['lists'] = [
      {
        list: 'requestlist',
        cap: 40,
        index: 'ignored',
        pagesize: null,
        learnedAt: '2026-11-22T00:00:02Z',
        evidence: "the day's list held 40 requests, its pipelines' lists more",
      },
      {
        list: 'actiondb tablename=SALES',
        cap: null,
        index: null,
        pagesize: null,
        learnedAt: '2026-11-23T00:00:02Z',
        evidence: 'answered 300 rows, more than the cap of 50 thought',
      },
    ];
    const text = render({ lists });
    expect(text).toContain(
      'Learnt per list requestlist — pages of at most 40 rows; index: ignored: every answer starts at the first row (learnt 2026-11-22 UTC)',
    );
    expect(text).toContain(
      'actiondb tablename=SALES — no cap: a cap it seemed to keep was wrong (learnt 2026-11-23 UTC)',
    );
    expect(render()).not.toContain('Learnt per list');
  });

  it('says how a whole-day Shift_JIS product answers, in plain words', () => {
    const text = render();
    expect(text).toContain('Paging whole day in one answer (it ignores pagesize)');
    expect(text).toContain('index ignored: every answer starts at the first row');
    expect(text).toContain('Next absent');
    expect(text).toContain('Shift_JIS, stated in its Content-Type');
    expect(text).toContain('sets a session cookie (kept on the server)');
    expect(text).toContain('at most 2: it refused more than 2 at once (503/429)');
    expect(text).toContain('about 7.3 MB (7,654,321 bytes)');
    expect(text).toContain('compressed answers (Content-Encoding)');
    expect(text).toContain(
      'polled about every 11.3 s, adapted to the cost of its rounds; the last round took 2,831 ms',
    );
    expect(text).toContain('Probed 2026-11-22 UTC');
  });

  it('warns when neither its dates nor the configuration give a zone', () => {
    expect(render()).toContain(
      'Its dates carry no zone and none is configured (zone: in the services file, or --upstream-zone)',
    );
    const dated = render({ zoneFrom: 'dates', datesZone: 'JST' });
    expect(dated).not.toContain('Its dates carry no zone');
    expect(dated).toContain('JST, stated in its own dates');
  });

  it('names the offset inferred so far, and says while it is only a first guess', () => {
    expect(render()).toContain('Zone of its dates none: its times are inferred ');
    expect(render({}, { utcOffsetMinutes: 420, utcOffsetEstimated: true })).toContain(
      'none: its times are estimated as UTC+07:00 until a request is seen to begin',
    );
    expect(render({}, { utcOffsetMinutes: 540, utcOffsetEstimated: false })).toContain(
      'none: its times are inferred as JST',
    );
  });

  it('shows a cap, and facts not learnt yet as such', () => {
    const text = render({
      pagesize: 'honoured',
      cap: 500,
      index: 'unknown',
      charset: '',
      concurrencyLimit: undefined,
      largestAnswerBytes: 0,
      probedAt: '',
      pollSeconds: 1,
      lastRoundMs: undefined,
    });
    expect(text).toContain('pages of at most 500 rows');
    expect(text).toContain('index not known yet');
    expect(text).toContain('Charset not known yet');
    expect(text).toContain('Calls at once at most 2 ');
    expect(text).toContain('no answer yet');
    expect(text).toContain('Probed not yet');
    expect(text).toContain('polled every 1 s; no round has ended yet');
  });

  it('shows the probe’s error in the service’s own words, as text and never as markup', () => {
    const html = renderToStaticMarkup(
      <CapabilitiesCard
        service={service}
        capabilities={{ ...learnt, probeError: '<img src=x onerror=alert(1)> 応答がありません' }}
        instant={(iso) => iso}
      />,
    );
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt; 応答がありません');
  });

  it('words the gateway’s own failure of the probe from its cause, in Japanese too', async () => {
    const probeError = 'Service Tokai cannot be reached (ECONNREFUSED).';
    const cause = { kind: 'unreachable', error: 'ECONNREFUSED' } as const;
    expect(render({ probeError, probeErrorCause: cause })).toMatch(/Cause: +ECONNREFUSED/);
    await i18n.changeLanguage('ja');
    const ja = render({ probeError, probeErrorCause: cause });
    await i18n.changeLanguage('en');
    expect(ja).toMatch(/原因： *ECONNREFUSED/);
    expect(ja).not.toContain('cannot be reached');
    // Without a cause the server did not say it is ours: shown as written.
    expect(render({ probeError })).toContain(probeError);
  });

  it('reads in Japanese', async () => {
    await i18n.changeLanguage('ja');
    const text = render();
    expect(text).toContain('1 日分を 1 回の応答で返す（pagesize を無視）');
    expect(text).toContain('Shift_JIS（Content-Type で指定）');
    expect(text).toContain('このサービスの日時にはタイムゾーンがなく');
  });
});
