import {
  HttpError,
  MC_SESSION_HEADER,
  ParseError,
  Transport,
  type RequestData,
} from '../../kit/index.ts';
import { NO_COOKIES, type Auth } from './auth.ts';

/**
 * The server's own Part A extensions the kit has no method for yet (`/mcapi/services`,
 * `/mcapi/audit`): a GET with the session header, read as a Part A envelope. Written here
 * rather than in the kit, which this branch does not change.
 */
export async function mcapiGet(
  auth: Auth | null,
  path: string,
  data?: RequestData,
): Promise<Record<string, unknown>> {
  const transport = new Transport(NO_COOKIES);
  const headers: Record<string, string> =
    auth?.kind === 'session' ? { [MC_SESSION_HEADER]: auth.sessionId } : {};
  const raw = await transport.send('GET', `/mcapi${path}`, data, headers);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.body);
  } catch {
    if (raw.status >= 400)
      throw new HttpError(raw.status, raw.method, raw.url, undefined, undefined, raw.body);
    throw new ParseError(`${raw.method} ${raw.url}: not JSON`, raw.body);
  }
  const result = (parsed as { result?: Record<string, unknown> } | null)?.result;
  if (raw.status >= 400 || result?.status !== 'success') {
    const code = typeof result?.code === 'number' ? result.code : undefined;
    const message = typeof result?.message === 'string' ? result.message : undefined;
    throw new HttpError(raw.status, raw.method, raw.url, code, message, raw.body);
  }
  const payload = result.data;
  return payload !== null && typeof payload === 'object'
    ? (payload as Record<string, unknown>)
    : {};
}

/** One pipeline service the server stands in front of (or its own embedded one). */
export interface ServiceInfo {
  readonly id: string;
  readonly name: string;
  readonly label: string;
  readonly color: string;
  readonly embedded: boolean;
  readonly reachable: boolean;
  readonly version: string;
  readonly checkedAt: string;
  readonly since: string;
  readonly message: string;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v == null ? '' : String(v));

export function decodeServices(data: Record<string, unknown>): ServiceInfo[] {
  const list = Array.isArray(data.services) ? (data.services as unknown[]) : [];
  return list.flatMap((value) => {
    if (value === null || typeof value !== 'object') return [];
    const s = value as Record<string, unknown>;
    const id = str(s.id);
    if (!id) return [];
    return [
      {
        id,
        name: str(s.name) || id,
        label: str(s.label),
        color: str(s.color),
        embedded: s.embedded === true,
        reachable: s.reachable !== false,
        version: str(s.version),
        checkedAt: str(s.checkedAt),
        since: str(s.since),
        message: str(s.message),
      },
    ];
  });
}

/** The one service a server without --upstream/--services has, when the list cannot be read. */
export const EMBEDDED_ONLY: readonly ServiceInfo[] = [
  {
    id: 'local',
    name: 'local',
    label: '',
    color: '',
    embedded: true,
    reachable: true,
    version: '',
    checkedAt: '',
    since: '',
    message: '',
  },
];
