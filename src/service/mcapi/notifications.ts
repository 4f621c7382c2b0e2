import type { FastifyInstance } from 'fastify';
import type { NotificationsAnswer, NotificationTestAnswer } from '../../kit/notifications.ts';
import type { ServiceContext } from '../context.ts';
import { listNotifications } from '../db/system/notifications.ts';
import { shownTarget } from '../notify/notifier.ts';
import { adminChange, MCAPI_PREFIX, requireRole, requireSession, send } from './respond.ts';

/** Notifications sent and their outcome, and the Settings page's test (administrators). */
export function notificationRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  // Newest first.
  app.get(`${MCAPI_PREFIX}/notifications`, async (request, reply) => {
    requireRole(await requireSession(ctx, request), 'administrator');
    return send<NotificationsAnswer>(reply, {
      targets: ctx.notifier.targets.map(shownTarget),
      notifications: await listNotifications(ctx.shared, 200),
    });
  });

  // The test button: a message to every receiver, and how each went.
  app.post(
    `${MCAPI_PREFIX}/notifications/test`,
    adminChange(ctx, 'mc.notify-test', async (request, reply) => {
      const session = await requireSession(ctx, request);
      return send<NotificationTestAnswer>(reply, {
        results: await ctx.notifier.test(session.userName),
      });
    }),
  );
}
