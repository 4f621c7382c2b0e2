import { ManagementConsoleClient, type RequestData } from '../../kit/index.ts';
import { NO_COOKIES, type Auth } from './auth.ts';

/** The server's own Part A extensions (`/mcapi/services`, `/mcapi/audit`), with the session. */
export function mcapiGet(
  auth: Auth | null,
  path: string,
  data?: RequestData,
): Promise<Record<string, unknown>> {
  const sessionId = auth?.kind === 'session' ? auth.sessionId : undefined;
  return new ManagementConsoleClient({ ...NO_COOKIES, sessionId }).read(path, data);
}
