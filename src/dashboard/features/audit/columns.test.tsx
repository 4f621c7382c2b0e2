import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { EMBEDDED_ONLY, type AuditEntry, type ServiceInfo } from '../../../kit/index.ts';
import { DataTable } from '../../components/data-table.tsx';
import { i18n } from '../../i18n/index.ts';

// Issue 38: the audit named services by id ("bulk") where a person reads. Their names from
// the server's list of services, the id kept in the row's data and the link's URL.

// auth.ts (under shared/services.ts) reads the browser's storage as it loads: none here.
const noStorage = { getItem: () => null, setItem: () => {}, removeItem: () => {} };
vi.stubGlobal('sessionStorage', noStorage);
vi.stubGlobal('localStorage', noStorage);
// A time is shown as its own test proves (i18n/time-format.test.ts); here, as given.
vi.mock('../../components/time.tsx', () => ({ Instant: ({ iso }: { iso: string }) => iso }));
const { serviceNameOf } = await import('../../shared/services.ts');
const { auditColumns } = await import('./columns.tsx');
await i18n.loadLanguages('ja');

const service = (id: string, name: string): ServiceInfo => ({
  ...(EMBEDDED_ONLY[0] as ServiceInfo),
  id,
  name,
  embedded: false,
});
const services = [service('tokyo', 'Tokyo prod'), service('bulk', 'Nightly loads')];

const entry = (over: Partial<AuditEntry>): AuditEntry => ({
  time: '2026-11-22T01:02:03.000Z',
  day: '20261122',
  userName: 'olivia',
  via: 'session',
  address: '127.0.0.1',
  service: 'bulk',
  operation: 'requestretry',
  parameters: '{"requestid":"7"}',
  httpStatus: 200,
  status: 'OK',
  message: '',
  requestId: '7',
  ...over,
});

const table = (language: string, rows: AuditEntry[]) =>
  renderToStaticMarkup(
    <MemoryRouter>
      <DataTable
        columns={auditColumns(i18n.getFixedT(language, 'audit'), 'tokyo', (id) =>
          serviceNameOf(services, id),
        )}
        rows={rows}
        rowKey={(_, i) => String(i)}
      />
    </MemoryRouter>,
  );

/** The text of the cells of a column, by its `data-service`. */
const serviceCells = (html: string) =>
  [...html.matchAll(/<td[^>]*data-service="([^"]*)"[^>]*>([^<]*)<\/td>/g)].map(([, id, text]) => ({
    id,
    text,
  }));

describe('the audit’s columns', () => {
  it('name each entry’s service by its name, its id kept in data and in the link', () => {
    const html = table('en', [entry({}), entry({ service: 'tokyo', requestId: '8' })]);
    expect(serviceCells(html)).toEqual([
      { id: 'bulk', text: 'Nightly loads' },
      { id: 'tokyo', text: 'Tokyo prod' },
    ]);
    expect(html).not.toContain('>bulk<');
    // The request's link goes to its own service by id; the first service needs none.
    expect(html).toContain('href="/requests/7?service=bulk"');
    expect(html).toContain('href="/requests/8"');
  });

  it('show a service no longer in the list by the only name it has, and none for the server', () => {
    const html = table('en', [entry({ service: 'gone' }), entry({ service: '' })]);
    expect(serviceCells(html)).toEqual([{ id: 'gone', text: 'gone' }]);
    expect(html.match(/<td[^>]*><\/td>/g)?.length).toBeGreaterThan(0);
  });

  it('word how someone called in the language shown', () => {
    expect(table('en', [entry({})])).toContain('(signed in)');
    expect(table('ja', [entry({ via: 'token ci' })])).toContain('（トークン ci）');
  });
});

describe('serviceNameOf', () => {
  it('is the name the list gives an id, else the id itself', () => {
    expect(serviceNameOf(services, 'bulk')).toBe('Nightly loads');
    expect(serviceNameOf(services, 'gone')).toBe('gone');
    // A service configured without a name: its id is its name (the server's own default).
    expect(serviceNameOf([service('edge', '')], 'edge')).toBe('edge');
  });
});
