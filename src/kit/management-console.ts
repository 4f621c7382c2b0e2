import {
  decodeAttempts,
  decodeRequestRange,
  type RequestAttempts,
  type RequestRange,
} from './attempts.ts';
import { auditPageData, decodeAudit, type AuditPage, type AuditPageQuery } from './audit.ts';
import { PipelineClient, requestFilterFields } from './client.ts';
import { ParseError } from './errors.ts';
import { decodeFleet, decodeTrends, type Fleet, type Trends } from './fleet.ts';
import {
  decodeNotifications,
  decodeNotificationTest,
  type NotificationsState,
  type NotificationTestResult,
} from './notifications.ts';
import { decodeServices, type ServiceInfo } from './services.ts';
import { SessionClient, partAData, type SessionClientOptions } from './session-client.ts';
import { decodeOidcProvider, decodeOidcSession, type OidcSession } from './sign-on.ts';
import {
  decodeNewToken,
  decodeTokens,
  tokenRequestData,
  type NewToken,
  type TokensAnswer,
  type TokenRequest,
} from './tokens.ts';
import type { CallOptions, Method, RequestData } from './transport.ts';
import { MC_SESSION_HEADER, ROLES, type Role } from './wire.ts';

/** What a management console login returns. */
export interface McLogin {
  readonly sessionId: string;
  readonly serverName: string;
  readonly serverId: string;
  /** The user's basic role, when asked for with getRole. */
  readonly role: Role | undefined;
}

/** A person's role on one service of the server (contract section 12). */
export interface ServiceRole {
  readonly service: string;
  readonly role: Role;
}

/** The signed-in user of a session (an extension of the embedded service). */
export interface McSession {
  readonly userName: string;
  /** Their default role: theirs on any service that gives them none of its own. */
  readonly role: Role;
  /**
   * Their role on each service the server answers for, in its order (the first is the one
   * plain /pipelineapi reaches); empty from a server without roles per service.
   */
  readonly serviceRoles: readonly ServiceRole[];
  readonly serverName: string;
  readonly serverId: string;
  readonly expires: string;
}

export interface ApiSettings {
  readonly apiEnabled: boolean;
  readonly apiKey: string | null;
  /** False once an administrator allowed personal tokens alone (contract section 12). */
  readonly sharedKeyEnabled: boolean;
}

/** The data of `POST /mcapi/auth/login` (`role` when asked for with getRole). */
export interface LoginAnswer {
  readonly sessionId: string;
  readonly serverName: string;
  readonly serverId: string;
  readonly role?: readonly Role[];
}

/** The data of `POST /mcapi/auth/logout`: where to end a single sign-on session too, if anywhere. */
export interface LogoutAnswer {
  readonly sessionId: string;
  readonly endSessionUrl?: string;
}

/** The data of `GET /mcapi/auth/session`. */
export type SessionAnswer = Omit<McSession, 'role'> & { readonly role: readonly Role[] };

/** The data of `POST /mcapi/pipeline/apikey`. */
export interface ApiKeyAnswer {
  readonly apiKey: string;
}

/** A page of the requests of several days (`GET /mcapi/requests/range`). */
export interface RequestRangeQuery {
  /** The service's id; the first one when absent. */
  readonly service?: string | undefined;
  /** The first and last days, yyyymmdd. */
  readonly from: string;
  readonly to: string;
  /** One pipeline, or all. */
  readonly id?: string | undefined;
  readonly status?: readonly string[] | undefined;
  readonly q?: string | undefined;
  readonly index?: number | undefined;
  readonly pageSize?: number | undefined;
}

const apiSettingsOf = (data: Record<string, unknown>): ApiSettings => ({
  apiEnabled: data.apiEnabled === true,
  apiKey: typeof data.apiKey === 'string' ? data.apiKey : null,
  sharedKeyEnabled: data.sharedKeyEnabled !== false,
});

function roleOf(value: unknown): Role | undefined {
  const first = Array.isArray(value) ? (value[0] as unknown) : value;
  return typeof first === 'string' && (ROLES as readonly string[]).includes(first)
    ? (first as Role)
    : undefined;
}

/**
 * The roles per service of a session's answer. A role this kit does not know reads as the
 * least one, viewer: a newer server's word never makes a client offer more than it may.
 */
function serviceRolesOf(value: unknown): ServiceRole[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry: unknown) => {
    if (entry === null || typeof entry !== 'object') return [];
    const { service, role } = entry as Record<string, unknown>;
    return typeof service === 'string' ? [{ service, role: roleOf(role) ?? 'viewer' }] : [];
  });
}

/**
 * Client of the management console API (Part A): login, logout and, on our server, the
 * session, the pipeline API settings and its extensions (services, audit, notifications,
 * tokens, fleet, trends, request history, single sign-on). After login it sends
 * X-As-SessionId. Every call takes, last, a CallOptions whose `signal` cancels it.
 *
 * @example
 * const mc = new ManagementConsoleClient({ host: '127.0.0.1', port: 25080 });
 * const { role } = await mc.login({ userName: 'admin', password: 'secret', getRole: true });
 * const pipelines = await mc.pipelineClient().listPipelines();
 * const services = await mc.services({ signal: AbortSignal.timeout(5000) });
 */
export class ManagementConsoleClient extends SessionClient {
  constructor(options: SessionClientOptions = {}) {
    super(options, { prefix: '/mcapi', header: MC_SESSION_HEADER, dataOf: partAData });
  }

  /**
   * Reads any Part A endpoint of the server with this client's session, returning the
   * envelope's data or throwing HttpError. The typed methods below decode the known ones.
   *
   * @example const { services } = await mc.read('/services');
   */
  read(
    path: string,
    data?: RequestData,
    options: CallOptions = {},
  ): Promise<Record<string, unknown>> {
    return this.call('GET', path, data, options);
  }

  /**
   * Sends any Part A change (POST, PUT, DELETE) with this client's session, returning the
   * envelope's data or throwing HttpError.
   * @example await mc.change('POST', '/notifications/test')
   */
  change(
    method: Exclude<Method, 'GET'>,
    path: string,
    data?: RequestData,
    options: CallOptions = {},
  ): Promise<Record<string, unknown>> {
    return this.call(method, path, data, options);
  }

  /** @example await mc.login({ userName: 'alice', password: 'pw', timeout: 60, getRole: true }) */
  async login(
    input: { userName: string; password: string; timeout?: number; getRole?: boolean },
    options: CallOptions = {},
  ): Promise<McLogin> {
    const fields = {
      userName: input.userName,
      password: input.password,
      timeout: input.timeout,
      getRole: input.getRole === undefined ? undefined : String(input.getRole),
    };
    const data = await this.call('POST', '/auth/login', fields, options);
    if (typeof data.sessionId !== 'string')
      throw new ParseError('login answered without a sessionId', JSON.stringify(data));
    this.sessionId = data.sessionId;
    return {
      sessionId: data.sessionId,
      serverName: String(data.serverName ?? ''),
      serverId: String(data.serverId ?? ''),
      role: roleOf(data.role),
    };
  }

  /**
   * Ends the session (this client's, or the one given). A session that came from a single
   * sign-on provider may still be open there: our server then says where to end it too
   * (`endSessionUrl`, an extension).
   * @example const { endSessionUrl } = await mc.logout()
   */
  async logout(
    sessionId = this.sessionId,
    options: CallOptions = {},
  ): Promise<{ endSessionUrl?: string }> {
    if (!sessionId) return {};
    const data = await this.call('POST', '/auth/logout', { sessionId }, options);
    if (sessionId === this.sessionId) this.sessionId = undefined;
    return typeof data.endSessionUrl === 'string' && data.endSessionUrl
      ? { endSessionUrl: data.endSessionUrl }
      : {};
  }

  /** Who is signed in (embedded service extension). @example (await mc.session()).role */
  async session(options: CallOptions = {}): Promise<McSession> {
    const data = await this.call('GET', '/auth/session', undefined, options);
    return {
      userName: String(data.userName ?? ''),
      role: roleOf(data.role) ?? 'operator',
      serviceRoles: serviceRolesOf(data.serviceRoles),
      serverName: String(data.serverName ?? ''),
      serverId: String(data.serverId ?? ''),
      expires: String(data.expires ?? ''),
    };
  }

  /** The pipeline API setting and key (administrators). @example await mc.settings() */
  async settings(options: CallOptions = {}): Promise<ApiSettings> {
    return apiSettingsOf(await this.call('GET', '/pipeline/settings', undefined, options));
  }

  /** @example await mc.setApiEnabled(false) */
  async setApiEnabled(enabled: boolean, options: CallOptions = {}): Promise<ApiSettings> {
    const fields = { apiEnabled: String(enabled) };
    return apiSettingsOf(await this.call('PUT', '/pipeline/settings', fields, options));
  }

  /**
   * Accepts the shared key, or personal tokens alone (false); disabling ends the cookies the
   * key started. @example await mc.setSharedKeyEnabled(false)
   */
  async setSharedKeyEnabled(enabled: boolean, options: CallOptions = {}): Promise<ApiSettings> {
    const fields = { sharedKeyEnabled: String(enabled) };
    return apiSettingsOf(await this.call('PUT', '/pipeline/settings', fields, options));
  }

  /** Issues a new API key; the old one stops working at once. @example const key = await mc.reissueApiKey(); */
  async reissueApiKey(options: CallOptions = {}): Promise<string> {
    const data = await this.call('POST', '/pipeline/apikey', undefined, options);
    return String(data.apiKey ?? '');
  }

  /** A pipeline API client that authenticates with this session. @example await mc.pipelineClient().version() */
  pipelineClient(): PipelineClient {
    if (!this.sessionId) throw new Error('sign in first');
    return new PipelineClient({
      ...this.options,
      credentials: { kind: 'session', sessionId: this.sessionId },
    });
  }

  /** The services the server stands in front of (contract section 7). @example (await mc.services())[0]?.reachable */
  async services(options: CallOptions = {}): Promise<ServiceInfo[]> {
    return decodeServices(await this.read('/services', undefined, options));
  }

  /** A page of the audit log, newest first (administrators). @example await mc.audit({ index: 0, pageSize: 100, user: 'alice' }) */
  async audit(query: AuditPageQuery, options: CallOptions = {}): Promise<AuditPage> {
    return decodeAudit(await this.read('/audit', auditPageData(query), options), query);
  }

  /** Receivers and the notifications sent, newest first (administrators). @example (await mc.notifications()).targets */
  async notifications(options: CallOptions = {}): Promise<NotificationsState> {
    return decodeNotifications(await this.read('/notifications', undefined, options));
  }

  /** A test message to every receiver, and how each went (administrators). @example await mc.testNotifications() */
  async testNotifications(options: CallOptions = {}): Promise<NotificationTestResult[]> {
    const data = await this.change('POST', '/notifications/test', undefined, options);
    return decodeNotificationTest(data);
  }

  /**
   * The signed-in person's own API tokens, newest first, and those revoked lately with why;
   * an administrator may ask another person's (`user`).
   * @example (await mc.tokens()).tokens.map((t) => t.name)
   */
  async tokens(options: CallOptions & { user?: string } = {}): Promise<TokensAnswer> {
    const { user, ...call } = options;
    return decodeTokens(
      await this.read('/tokens', user === undefined ? undefined : { user }, call),
    );
  }

  /** A new personal token; its value is in this answer alone. @example (await mc.createToken(asked)).token */
  async createToken(asked: TokenRequest, options: CallOptions = {}): Promise<NewToken> {
    return decodeNewToken(await this.change('POST', '/tokens', tokenRequestData(asked), options));
  }

  /** Revokes one of the person's own tokens (an administrator: anyone's). @example await mc.revokeToken(3) */
  async revokeToken(id: number, options: CallOptions = {}): Promise<void> {
    await this.change('DELETE', `/tokens/${id}`, undefined, options);
  }

  /** Every service's today at once (issue 25). @example (await mc.fleet()).services */
  async fleet(options: CallOptions = {}): Promise<Fleet> {
    return decodeFleet(await this.read('/fleet', undefined, options));
  }

  /** A pipeline's last days by outcome and duration. @example await mc.trends({ service: 'local', pipelineId: 'pl_1', days: 30 }) */
  async trends(
    query: { readonly service: string; readonly pipelineId: string; readonly days: number },
    options: CallOptions = {},
  ): Promise<Trends> {
    const fields = { service: query.service, pipelineid: query.pipelineId, days: query.days };
    return decodeTrends(await this.read('/trends', fields, options));
  }

  /** A request's attempts, with who retried or cancelled them. @example await mc.requestAttempts({ requestId }) */
  async requestAttempts(
    query: { readonly requestId: string; readonly service?: string | undefined },
    options: CallOptions = {},
  ): Promise<RequestAttempts> {
    const fields = { requestid: query.requestId, service: query.service };
    return decodeAttempts(await this.read('/requests/attempts', fields, options));
  }

  /** A page of the requests of several days, with exact counts. @example await mc.requestRange({ from, to }) */
  async requestRange(query: RequestRangeQuery, options: CallOptions = {}): Promise<RequestRange> {
    const { service, from, to } = query;
    const fields = { service, from, to, ...requestFilterFields(query) };
    return decodeRequestRange(await this.read('/requests/range', fields, options));
  }

  /** The single sign-on provider's name, or null without one. @example await mc.oidcProvider() */
  async oidcProvider(options: CallOptions = {}): Promise<string | null> {
    return decodeOidcProvider(await this.read('/auth/oidc', undefined, options));
  }

  /** Trades a provider's one-time handoff for its session. @example await mc.oidcSession(handoff) */
  async oidcSession(handoff: string, options: CallOptions = {}): Promise<OidcSession> {
    return decodeOidcSession(await this.read('/auth/oidc/session', { code: handoff }, options));
  }
}
