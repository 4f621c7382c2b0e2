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
  /** An upstream's request lists are the server's index as of this time (ISO), or ''. */
  readonly indexedAt: string;
  /** Why the index's last refresh failed, or ''. */
  readonly indexError: string;
  /** The service's zone as an IANA name (e.g. Asia/Tokyo), or '' when the server does not know it. */
  readonly timeZone: string;
  /** The service's offset from UTC in minutes, when only that is known (told by its answers). */
  readonly utcOffsetMinutes: number | undefined;
  /** The zone's name as the service writes it in its own dates (e.g. JST), or ''. */
  readonly zoneName: string;
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
        indexedAt: str(s.indexedAt),
        indexError: str(s.indexError),
        timeZone: str(s.timeZone),
        utcOffsetMinutes:
          typeof s.utcOffsetMinutes === 'number' && Number.isFinite(s.utcOffsetMinutes)
            ? s.utcOffsetMinutes
            : undefined,
        zoneName: str(s.zoneName),
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
    indexedAt: '',
    indexError: '',
    timeZone: '',
    utcOffsetMinutes: undefined,
    zoneName: '',
  },
];
