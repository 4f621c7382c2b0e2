import type { AuditLog } from './audit/audit-log.ts';
import type { ApiAccess } from './auth/api-access.ts';
import type { SessionStore } from './auth/sessions.ts';
import type { Clock, ServiceTime } from './clock.ts';
import type { Databases } from './db/databases.ts';
import type { DataPaths, EngineControl } from './engine/control.ts';
import type { Services } from './gateway/service-state.ts';
import type { ServiceLimits } from './limits.ts';
import type { Notifier } from './notify/notifier.ts';
import type { Sql } from './db/sql.ts';

/** Everything a handler may use; built once by the app. */
export interface ServiceContext {
  readonly dbs: Databases;
  /**
   * The gateway's shared state (users, sessions, settings, tokens, audit, bulk jobs,
   * notification claims): the system database, or PostgreSQL with `--database`.
   */
  readonly shared: Sql;
  readonly clock: Clock;
  readonly time: ServiceTime;
  readonly access: ApiAccess;
  readonly engine: EngineControl;
  readonly version: string;
  readonly paths: DataPaths;
  readonly sessions: SessionStore;
  readonly serverName: string;
  /** UUID made at first start, kept in the system database. */
  readonly serverId: string;
  readonly limits: ServiceLimits;
  readonly audit: AuditLog;
  /** The services Part C answers for: the embedded engine and any upstreams. */
  readonly services: Services;
  readonly notifier: Notifier;
}
