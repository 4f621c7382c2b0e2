import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, describe, expect, it } from 'vitest';
import { i18n } from '../../i18n/index.ts';
import { SeenTimeText } from './seen-time.tsx';

await i18n.loadLanguages('ja');

const ISO = '2026-11-21T00:04:25.000Z';
const render = () =>
  renderToStaticMarkup(<SeenTimeText iso={ISO} text="2026-11-21 09:04:25 JST" />);

afterAll(async () => {
  await i18n.changeLanguage('en');
});

describe('SeenTimeText', () => {
  it('says the time is when this server saw it, in each language, the time kept whole', async () => {
    await i18n.changeLanguage('en');
    expect(render()).toBe(
      '<span data-testid="attempt-seen"><time dateTime="2026-11-21T00:04:25.000Z" class="whitespace-nowrap">2026-11-21 09:04:25 JST</time> (when this server saw it)</span>',
    );
    await i18n.changeLanguage('ja');
    expect(render()).toContain(
      '<time dateTime="2026-11-21T00:04:25.000Z" class="whitespace-nowrap">2026-11-21 09:04:25 JST</time>（このサーバーが検知した時刻）',
    );
  });
});
