import type { FastifyInstance } from 'fastify';
import type { Databases } from '../db/databases.ts';
import type { Services } from '../gateway/service-state.ts';
import type { SharedStore } from '../store/shared-store.ts';

/** One part of the server as /readyz reports it. */
export interface ComponentState {
  readonly name: string;
  readonly state: 'ok' | 'failing';
  readonly checkedAt: string | null;
  readonly message: string | null;
}

/**
 * Health endpoints (contract section 9) for load balancers and orchestrators: /healthz
 * answers while the process serves; /readyz only when the databases answer and every
 * upstream answered its last check, naming each component either way. Neither needs
 * credentials nor tells anything secret.
 */
export function healthRoutes(
  server: FastifyInstance,
  dbs: Databases,
  store: SharedStore,
  services: Services,
  now: () => Date,
): void {
  server.get('/healthz', async (_request, reply) =>
    reply.header('cache-control', 'no-store').send({ status: 'ok' }),
  );
  server.get('/readyz', async (_request, reply) => {
    const checkedAt = now().toISOString();
    // A gateway without an embedded service keeps only the system database.
    const databases = services.hasEmbedded
      ? (['system', 'status', 'action'] as const)
      : (['system'] as const);
    const components: ComponentState[] = databases.map((name) => {
      try {
        dbs.readers[name].prepare('SELECT 1').get();
        return { name: `${name} database`, state: 'ok', checkedAt, message: null };
      } catch (error) {
        return {
          name: `${name} database`,
          state: 'failing',
          checkedAt,
          message: (error as Error).message,
        };
      }
    });
    // The gateways' shared PostgreSQL, named (its password masked): while it is gone, every
    // gateway is not ready, and each answers 503 for what needs it.
    if (store.engine === 'postgres') {
      const state: ComponentState = await store.check().then(
        () => ({ name: store.name, state: 'ok', checkedAt, message: null }),
        (error: unknown) => ({
          name: store.name,
          state: 'failing',
          checkedAt,
          message: error instanceof Error ? error.message : String(error),
        }),
      );
      components.push(state);
    }
    for (const service of services.list()) {
      if (service.embedded) continue;
      // States only: no one signs in here, and an upstream's words are its own data
      // (they may echo what it was sent). Signed-in people read them in /mcapi/services.
      components.push({
        name: `service ${service.id}`,
        state: service.reachable ? 'ok' : 'failing',
        checkedAt: service.checkedAt,
        message: null,
      });
    }
    const ready = components.every((c) => c.state === 'ok');
    return reply
      .code(ready ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({ status: ready ? 'ready' : 'not ready', components });
  });
}
