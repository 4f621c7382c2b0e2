import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import type { ManagementConsoleClient } from '../../kit/index.ts';
import { auditQuery } from './audit.ts';
import { fleetQuery } from './fleet.ts';
import { servicesQuery } from './services.ts';

// auth.ts reads the browser's storage as it loads; the factories need none of it.
vi.mock('../core/auth.ts', () => ({ useClients: () => ({}), useAuth: () => null }));

/**
 * A console whose every call waits until its signal aborts, recording what it was asked:
 * a query the dashboard cancels must cancel the kit's call, and so its fetch.
 */
function waitingConsole() {
  const calls: { method: string; args: unknown[]; signal: AbortSignal | undefined }[] = [];
  const mc = new Proxy(
    {},
    {
      get:
        (_, method: string) =>
        (...args: unknown[]) => {
          const signal = (args.at(-1) as { signal?: AbortSignal } | undefined)?.signal;
          calls.push({ method, args, signal });
          return new Promise((_resolve, reject) =>
            signal?.addEventListener('abort', () => reject(signal.reason as Error)),
          );
        },
    },
  ) as ManagementConsoleClient;
  return { mc, calls };
}

describe('the server-wide queries', () => {
  it('hand the query’s signal to the kit, so a cancelled query cancels its call', async () => {
    const { mc, calls } = waitingConsole();
    const client = new QueryClient();
    const ignore = () => undefined;
    void client.fetchQuery(servicesQuery(mc)).catch(ignore);
    void client.fetchQuery(fleetQuery(mc)).catch(ignore);
    void client.fetchQuery(auditQuery(mc, { user: 'alice', index: 100, size: 50 })).catch(ignore);
    await vi.waitFor(() => expect(calls).toHaveLength(3));
    expect(calls.map((c) => [c.method, c.signal?.aborted])).toEqual([
      ['services', false],
      ['fleet', false],
      ['audit', false],
    ]);
    // The audit's page size is the kit's pageSize, its filter the kit's.
    expect(calls[2]?.args[0]).toEqual({ user: 'alice', index: 100, pageSize: 50 });
    await client.cancelQueries();
    expect(calls.map((c) => c.signal?.aborted)).toEqual([true, true, true]);
  });
});
