import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { EMBEDDED_ONLY, type PersonalToken, type ServiceInfo } from '../../../kit/index.ts';
import type * as services from '../../shared/services.ts';

type SharedServices = typeof services;

// Issue 38: a token's service read as its id ("bulk") where a person reads, and the new
// token's list of services offered each service's label ("production", or nothing). Names
// from the server's list of services; the id stays the option's value and the cell's data.

const service = (id: string, name: string, label = ''): ServiceInfo => ({
  ...(EMBEDDED_ONLY[0] as ServiceInfo),
  id,
  name,
  label,
  embedded: false,
});
const SERVICES = [service('tokyo', 'Tokyo prod', 'production'), service('bulk', 'Nightly loads')];

const token = (over: Partial<PersonalToken>): PersonalToken => ({
  id: 1,
  name: 'ci',
  role: 'operator',
  service: 'bulk',
  createdAt: '2026-11-22T01:02:03.000Z',
  expiresAt: '2026-12-22T01:02:03.000Z',
  lastUsedAt: null,
  ...over,
});
const TOKENS = [
  token({}),
  token({ id: 2, name: 'all', service: null }),
  token({ id: 3, name: 'old', service: 'gone' }),
];

vi.mock('../../core/auth.ts', () => ({
  useAuth: () => ({ kind: 'session', role: 'operator', userName: 'olivia' }),
  sessionIdOf: () => undefined,
}));
vi.mock('../../shared/services.ts', async (importOriginal) => ({
  ...(await importOriginal<SharedServices>()),
  useServices: () => ({ services: SERVICES, known: true, isLoading: false, error: null }),
  useCurrentService: () => SERVICES[0],
}));
vi.mock('./queries.ts', () => {
  const change = { mutate: () => {}, mutateAsync: async () => {}, isPending: false, error: null };
  return {
    usePersonalTokens: () => ({ data: { tokens: TOKENS, revoked: [] }, error: null }),
    useCreateToken: () => change,
    useRevokeToken: () => change,
  };
});
// A time is shown as its own test proves (i18n/time-format.test.ts); here, as given.
vi.mock('../../components/time.tsx', () => ({ Instant: ({ iso }: { iso: string }) => iso }));
const { i18n } = await import('../../i18n/index.ts');
await i18n.loadLanguages('ja');
const { TokensSection } = await import('./tokens-section.tsx');

const render = async (language: string) => {
  await i18n.changeLanguage(language);
  return renderToStaticMarkup(
    <QueryClientProvider client={new QueryClient()}>
      <TokensSection />
    </QueryClientProvider>,
  );
};

describe('the tokens list', () => {
  it('names each token’s service by its name, its id kept in the cell’s data', async () => {
    const html = await render('en');
    const cells = [...html.matchAll(/<td[^>]*data-service="([^"]*)"[^>]*>([^<]*)<\/td>/g)];
    expect(cells.map(([, id, text]) => ({ id, text }))).toEqual([
      { id: 'bulk', text: 'Nightly loads' },
      // A service no longer configured: its id is all there is to show.
      { id: 'gone', text: 'gone' },
    ]);
    expect(html).toContain('Every service');
    // On a phone, under the token's name.
    expect(html).toContain('operator · Nightly loads');
    expect(html).not.toContain('>bulk<');
  });

  it('offers the new token’s services by name, their ids the values', async () => {
    const html = await render('ja');
    expect(html).toContain('<option value="tokyo">Tokyo prod</option>');
    expect(html).toContain('<option value="bulk">Nightly loads</option>');
    expect(html).toContain('オペレーター · Nightly loads');
  });
});
