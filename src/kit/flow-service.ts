import { ParseError } from './errors.ts';
import { SessionClient, partBData, type SessionClientOptions } from './session-client.ts';
import type { CallOptions } from './transport.ts';
import { FS_SESSION_HEADER } from './wire.ts';

/**
 * Client of the flow service API (Part B): login and logout; later calls carry X-Fs-SessionId.
 *
 * @example
 * const fs = new FlowServiceClient({ host: '127.0.0.1', port: 25080 });
 * await fs.login({ user: 'robot' }); // a user without a password
 */
export class FlowServiceClient extends SessionClient {
  constructor(options: SessionClientOptions = {}) {
    super(options, { prefix: '/api', header: FS_SESSION_HEADER, dataOf: partBData });
  }

  /** @example const sessionId = await fs.login({ user: 'alice', password: 'pw', lifetime: 60 }); */
  async login(
    input: { user: string; password?: string; lifetime?: number },
    options: CallOptions = {},
  ): Promise<string> {
    const data = await this.call('POST', '/auth/login', input, options);
    if (typeof data.sessionId !== 'string')
      throw new ParseError('login answered without a sessionId', JSON.stringify(data));
    this.sessionId = data.sessionId;
    return data.sessionId;
  }

  /** @example await fs.logout() */
  async logout(sessionId = this.sessionId, options: CallOptions = {}): Promise<void> {
    if (!sessionId) return;
    await this.call('POST', '/auth/logout', { sessionId }, options);
    if (sessionId === this.sessionId) this.sessionId = undefined;
  }

  /** The session's user and role (embedded service extension). @example (await fs.session()).user */
  async session(
    options: CallOptions = {},
  ): Promise<{ user: string; role: string; expires: string }> {
    const data = await this.call('GET', '/auth/session', undefined, options);
    return {
      user: String(data.user ?? ''),
      role: String(data.role ?? ''),
      expires: String(data.expires ?? ''),
    };
  }
}
