import { answerFields, listField, objectsOf, textOf } from './liberal.ts';

// Notifications of failed requests (contract section 7; administrators): the receivers,
// what was sent (`GET /mcapi/notifications`), and the Settings page's test
// (`POST /mcapi/notifications/test`).

/** One notification as the server writes it. */
export interface NotificationAnswer {
  readonly time: string;
  /** The receiver's origin only. */
  readonly target: string;
  readonly requestId: string;
  readonly status: string;
  readonly attempts: number;
  readonly outcome: string;
  readonly message: string;
}

/** The data of `GET /mcapi/notifications`: receivers (origins only) and notifications, newest first. */
export interface NotificationsAnswer {
  readonly targets: readonly string[];
  readonly notifications: readonly NotificationAnswer[];
}

/** How a test message to one receiver went. */
export interface NotificationTestResult {
  readonly target: string;
  readonly outcome: string;
  readonly message: string;
}

/** The data of `POST /mcapi/notifications/test`. */
export interface NotificationTestAnswer {
  readonly results: readonly NotificationTestResult[];
}

/** Receivers and the notifications sent, as a client reads them: the answer's shape, read liberally. */
export type NotificationsState = NotificationsAnswer;

/**
 * The data of `GET /mcapi/notifications`, read liberally (texts '' when absent, attempts 0).
 * @example decodeNotifications(await mc.read('/notifications')).targets
 */
export function decodeNotifications(data: unknown): NotificationsState {
  const answer = answerFields<NotificationsAnswer>(data, '/mcapi/notifications');
  return {
    targets: listField(answer.targets, 'targets').map(textOf),
    notifications: objectsOf<NotificationAnswer>(answer.notifications, 'notifications').map(
      (n) => ({
        time: textOf(n.time),
        target: textOf(n.target),
        requestId: textOf(n.requestId),
        status: textOf(n.status),
        attempts: Number(n.attempts ?? 0),
        outcome: textOf(n.outcome),
        message: textOf(n.message),
      }),
    ),
  };
}

/** The data of `POST /mcapi/notifications/test`, read liberally. */
export function decodeNotificationTest(data: unknown): NotificationTestResult[] {
  const answer = answerFields<NotificationTestAnswer>(data, '/mcapi/notifications/test');
  return objectsOf<NotificationTestResult>(answer.results, 'results').map((r) => ({
    target: textOf(r.target),
    outcome: textOf(r.outcome),
    message: textOf(r.message),
  }));
}
