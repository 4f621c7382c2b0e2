/**
 * Every poll of the dashboard in one place: how often each query is read again, and when it
 * stops. Each query that polls spreads `autoRefresh(...)` into its options, so a new poll
 * is added here, beside the others, not written into a feature.
 *
 * A poll pauses while the tab is hidden (React Query's `refetchIntervalInBackground: false`),
 * except where `inBackground` says the user is waiting for the answer. A poll given as a
 * function of the data stops itself (`false`) once nothing it shows can change any more.
 */

/** How often, in milliseconds, the queries read again on a fixed clock. */
export const POLL_MS = {
  /** /mcapi/services: often enough that the "as of" of an upstream's request index stays true. */
  services: 10_000,
  /** /mcapi/fleet: as often as /mcapi/services, since the server answers from its index. */
  fleet: 10_000,
  /**
   * A person's role on each service, as the server reads it at each call: a grant or a revoke
   * shows in the controls without signing in again.
   */
  serviceRoles: 15_000,
  pipelines: 30_000,
  /** The service's own today (its Info.Date): a day changes once a day. */
  serviceToday: 60_000,
  /** Past days change little; today's counts do. */
  trends: 60_000,
  /** A request's detail while it can still change. */
  requestDetail: 2000,
  /** A request followed after an action, until it ends. */
  followedRequest: 2000,
  /** A request's attempts while they may change: as often as a gateway's index learns of it. */
  attempts: 5000,
  /** A bulk job while it runs. */
  bulkRunning: 1000,
  /** A bulk job once done, while what became of its requests may still change. */
  bulkSettling: 2000,
} as const;

/** An interval for React Query: milliseconds, or `false` for no polling. */
export type PollInterval = number | false;

/**
 * The interval of a refresh the user chose (Settings, the requests page), in seconds, 0 for
 * off; never below `floorSeconds`, where a query costs the service too much to read faster.
 */
export function chosenInterval(refreshSeconds: number, floorSeconds = 0): PollInterval {
  return refreshSeconds > 0 ? Math.max(refreshSeconds, floorSeconds) * 1000 : false;
}

/**
 * React Query's polling options for a query: a fixed interval (see POLL_MS, chosenInterval),
 * or one read from the query's data as last fetched (undefined before the first answer).
 * Polls only in a visible tab unless `inBackground`.
 */
export function autoRefresh(every: PollInterval, options?: RefreshOptions): Polling<PollInterval>;
export function autoRefresh<TData>(
  every: (data: TData | undefined) => PollInterval,
  options?: RefreshOptions,
): Polling<(query: { state: { data: TData | undefined } }) => PollInterval>;
export function autoRefresh<TData>(
  every: PollInterval | ((data: TData | undefined) => PollInterval),
  { inBackground = false }: RefreshOptions = {},
): Polling<PollInterval | ((query: { state: { data: TData | undefined } }) => PollInterval)> {
  return {
    refetchInterval: typeof every === 'function' ? (query) => every(query.state.data) : every,
    refetchIntervalInBackground: inBackground,
  };
}

interface RefreshOptions {
  /** Keep polling while the tab is hidden: for what the user waits on (an action's outcome). */
  readonly inBackground?: boolean;
}

/** The part of a query's options that says when it is read again. */
interface Polling<Every> {
  refetchInterval: Every;
  refetchIntervalInBackground: boolean;
}
