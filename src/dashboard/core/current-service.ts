/**
 * The pipeline service the dashboard is looking at, from the URL's `service` parameter.
 * The layout sets it as it renders, before any page below it, so that:
 * - every link built in paths.ts carries it (`?service=<id>`; left out for the first service
 *   of the server's list, which is also what plain /pipelineapi reaches);
 * - every Part C call goes to `/services/<id>/pipelineapi` (auth.ts's clients);
 * - every cached query belongs to one service (query-client.ts hashes keys with it), so one
 *   service's requests are never shown under another's name.
 */
export interface CurrentService {
  /** The service's id, for the clients' basePath; undefined calls plain /pipelineapi. */
  readonly id: string | undefined;
  /** What links carry: undefined for the first (default) service. */
  readonly param: string | undefined;
  /**
   * Its name, as the server's sentences about it write it (components/error-view.tsx words
   * them); undefined while the server's list is not known.
   */
  readonly name?: string | undefined;
}

let current: CurrentService = { id: undefined, param: undefined };

export function setCurrentService(next: CurrentService): void {
  current = next;
}

export function currentService(): CurrentService {
  return current;
}

/** The basePath of the kit's PipelineClient for a service id. */
export function basePathOf(id: string | undefined): string {
  return id === undefined ? '' : `/services/${encodeURIComponent(id)}`;
}
