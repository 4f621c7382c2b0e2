import { describe, expect, it } from 'vitest';
import { startService } from '../testing/service.ts';
import { startVendorService } from '../testing/vendor/vendor-service.ts';

interface Readiness {
  status: string;
  components: { name: string; state: string; checkedAt: string | null; message: string | null }[];
}

describe('health endpoints', () => {
  it('/healthz answers while the process serves; /readyz names each database', async () => {
    const service = await startService();
    try {
      const health = await service.fetch('/healthz');
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });
      const ready = await service.fetch('/readyz');
      expect(ready.status).toBe(200);
      const body = (await ready.json()) as Readiness;
      expect(body.status).toBe('ready');
      expect(body.components.map((c) => [c.name, c.state])).toEqual([
        ['system database', 'ok'],
        ['status database', 'ok'],
        ['action database', 'ok'],
      ]);
      // A database that stops answering makes the server not ready, and says which.
      service.app.context.dbs.readers.action.close();
      const broken = await service.fetch('/readyz');
      expect(broken.status).toBe(503);
      const failing = ((await broken.json()) as Readiness).components.filter(
        (c) => c.state !== 'ok',
      );
      expect(failing.map((c) => c.name)).toEqual(['action database']);
      expect((await service.fetch('/healthz')).status).toBe(200);
    } finally {
      await service.close();
    }
  });

  it('/readyz names each upstream with its last check, and is 503 while one is unreachable', async () => {
    const vendor = await startVendorService();
    const gateway = await startService({
      services: [{ id: 'prod', name: 'Production', url: vendor.url, apiKey: vendor.apiKey }],
    });
    try {
      const ready = (await (await gateway.fetch('/readyz')).json()) as Readiness;
      expect(ready.components.at(-1)).toMatchObject({ name: 'service prod', state: 'ok' });
      await vendor.close();
      await gateway.app.context.services.checkAll();
      const response = await gateway.fetch('/readyz');
      expect(response.status).toBe(503);
      const down = ((await response.json()) as Readiness).components.at(-1);
      expect(down).toMatchObject({ name: 'service prod', state: 'failing' });
      expect(down?.message).toBeNull();
      expect(down?.checkedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    } finally {
      await gateway.close();
    }
  });
});
