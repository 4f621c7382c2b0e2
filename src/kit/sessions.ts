import { HttpError, ParseError } from './errors.ts';
import { PipelineClient } from './client.ts';
import {
  Transport,
  type Method,
  type RawResponse,
  type RequestData,
  type TransportOptions,
} from './transport.ts';
import { xmlToTree } from './tree.ts';
import { FS_SESSION_HEADER, MC_SESSION_HEADER, ROLES, type Role } from './wire.ts';

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

/** Reads a Part A envelope: the data of a success, or an HttpError carrying code and message. */
function partAData(raw: RawResponse): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.body);
  } catch {
    if (raw.status >= 400)
      throw new HttpError(raw.status, raw.method, raw.url, undefined, undefined, raw.body);
    throw new ParseError(`${raw.method} ${raw.url}: not JSON`, raw.body);
  }
  const result = (parsed as { result?: Record<string, unknown> } | null)?.result;
  const code = typeof result?.code === 'number' ? result.code : undefined;
  return envelopeData(raw, result, code);
}

/**
 * The data of a Part A or Part B envelope (`result`: status, code, message, data) that says
 * success, or an HttpError with the code (as each Part writes it) and the service's message.
 */
function envelopeData(
  raw: RawResponse,
  result: Record<string, unknown> | undefined,
  code: number | undefined,
): Record<string, unknown> {
  if (raw.status >= 400 || result?.status !== 'success') {
    const message = typeof result?.message === 'string' ? result.message : undefined;
    throw new HttpError(raw.status, raw.method, raw.url, code, message, raw.body);
  }
  return (result.data ?? {}) as Record<string, unknown>;
}

export type SessionClientOptions = TransportOptions & { sessionId?: string };

/** How a Part speaks: its path prefix, the header its session goes in, its envelope. */
interface SessionDialect {
  readonly prefix: string;
  readonly header: string;
  readonly dataOf: (raw: RawResponse) => Record<string, unknown>;
}

/** What the Part A and Part B clients share: calls that carry the session in its header. */
abstract class SessionClient {
  private readonly transport: Transport;
  /** The current session id, set by login (or given, to resume a stored session). */
  sessionId: string | undefined;

  constructor(
    protected readonly options: SessionClientOptions,
    private readonly dialect: SessionDialect,
  ) {
    this.transport = new Transport(options);
    this.sessionId = options.sessionId;
  }

  protected async call(
    method: Method,
    path: string,
    data?: RequestData,
  ): Promise<Record<string, unknown>> {
    const { prefix, header, dataOf } = this.dialect;
    const headers: Record<string, string> = this.sessionId ? { [header]: this.sessionId } : {};
    return dataOf(await this.transport.send(method, `${prefix}${path}`, data, headers));
  }
}

/**
 * Client of the management console API (Part A): login, logout and, on the embedded
 * service, the session and the pipeline API settings. After login it sends X-As-SessionId.
 *
 * @example
 * const mc = new ManagementConsoleClient({ host: '127.0.0.1', port: 25080 });
 * const { role } = await mc.login({ userName: 'admin', password: 'secret', getRole: true });
 * const pipelines = await mc.pipelineClient().listPipelines();
 */
export class ManagementConsoleClient extends SessionClient {
  constructor(options: SessionClientOptions = {}) {
    super(options, { prefix: '/mcapi', header: MC_SESSION_HEADER, dataOf: partAData });
  }

  /**
   * Reads any Part A endpoint of the server (its extensions: services, audit, notifications)
   * with this client's session, returning the envelope's data or throwing HttpError.
   *
   * @example const { services } = await mc.read('/services');
   */
  read(path: string, data?: RequestData): Promise<Record<string, unknown>> {
    return this.call('GET', path, data);
  }

  /** @example await mc.login({ userName: 'alice', password: 'pw', timeout: 60, getRole: true }) */
  async login(input: {
    userName: string;
    password: string;
    timeout?: number;
    getRole?: boolean;
  }): Promise<McLogin> {
    const data = await this.call('POST', '/auth/login', {
      userName: input.userName,
      password: input.password,
      timeout: input.timeout,
      getRole: input.getRole === undefined ? undefined : String(input.getRole),
    });
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
  async logout(sessionId = this.sessionId): Promise<{ endSessionUrl?: string }> {
    if (!sessionId) return {};
    const data = await this.call('POST', '/auth/logout', { sessionId });
    if (sessionId === this.sessionId) this.sessionId = undefined;
    return typeof data.endSessionUrl === 'string' && data.endSessionUrl
      ? { endSessionUrl: data.endSessionUrl }
      : {};
  }

  /** Who is signed in (embedded service extension). @example (await mc.session()).role */
  async session(): Promise<McSession> {
    const data = await this.call('GET', '/auth/session');
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
  async settings(): Promise<ApiSettings> {
    return apiSettingsOf(await this.call('GET', '/pipeline/settings'));
  }

  /** @example await mc.setApiEnabled(false) */
  async setApiEnabled(enabled: boolean): Promise<ApiSettings> {
    return apiSettingsOf(
      await this.call('PUT', '/pipeline/settings', { apiEnabled: String(enabled) }),
    );
  }

  /**
   * Accepts the shared key, or personal tokens alone (false); disabling ends the cookies the
   * key started. @example await mc.setSharedKeyEnabled(false)
   */
  async setSharedKeyEnabled(enabled: boolean): Promise<ApiSettings> {
    return apiSettingsOf(
      await this.call('PUT', '/pipeline/settings', { sharedKeyEnabled: String(enabled) }),
    );
  }

  /** Issues a new API key; the old one stops working at once. @example const key = await mc.reissueApiKey(); */
  async reissueApiKey(): Promise<string> {
    const data = await this.call('POST', '/pipeline/apikey');
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
}

/** Reads a Part B envelope: the data of a success, or an HttpError carrying code and message. */
function partBData(raw: RawResponse): Record<string, unknown> {
  let result: Record<string, unknown> | undefined;
  try {
    result = xmlToTree(raw.body).result as Record<string, unknown> | undefined;
  } catch {
    result = undefined;
  }
  // XML carries the code as text.
  const code = result && /^\d+$/.test(String(result.code)) ? Number(result.code) : undefined;
  return envelopeData(raw, result, code);
}

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
  async login(input: { user: string; password?: string; lifetime?: number }): Promise<string> {
    const data = await this.call('POST', '/auth/login', input);
    if (typeof data.sessionId !== 'string')
      throw new ParseError('login answered without a sessionId', JSON.stringify(data));
    this.sessionId = data.sessionId;
    return data.sessionId;
  }

  /** @example await fs.logout() */
  async logout(sessionId = this.sessionId): Promise<void> {
    if (!sessionId) return;
    await this.call('POST', '/auth/logout', { sessionId });
    if (sessionId === this.sessionId) this.sessionId = undefined;
  }

  /** The session's user and role (embedded service extension). @example (await fs.session()).user */
  async session(): Promise<{ user: string; role: string; expires: string }> {
    const data = await this.call('GET', '/auth/session');
    return {
      user: String(data.user ?? ''),
      role: String(data.role ?? ''),
      expires: String(data.expires ?? ''),
    };
  }
}
