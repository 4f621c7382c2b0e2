import { CONTENT_TYPES, OPERATIONS } from '../../kit/wire.ts';
import type { ServiceContext } from '../context.ts';
import type { CachedReadResolver } from '../http/cached-reads.ts';
import { plainReader } from './authenticate.ts';
import { parseTarget, PIPELINE_API_PREFIX, type Target } from './target.ts';

export interface CachedAnswer {
  readonly version: number;
  readonly body: Buffer;
}

/**
 * Rendered answers of reads by URL, with the data version they were made at. Bounded in
 * bytes, not entries: a few huge pages must not hold the memory that many small ones would.
 * The least recently used go first; an answer over the entry bound is never kept.
 */
export class AnswerCache {
  private readonly entries = new Map<string, CachedAnswer>();
  private bytes = 0;
  /** The entry last put at the Map's newest end. */
  private newest: CachedAnswer | undefined;

  constructor(
    private readonly maxBytes: number,
    private readonly maxEntryBytes: number,
  ) {}

  /** Bytes held now (keys are small and not counted). */
  get size(): number {
    return this.bytes;
  }

  get(key: string): CachedAnswer | undefined {
    const entry = this.entries.get(key);
    // Moved to the newest end, unless it is there already: a client asking for the same
    // answer again and again then costs one Map read, not a delete and an insert each.
    if (entry && entry !== this.newest) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      this.newest = entry;
    }
    return entry;
  }

  set(key: string, entry: CachedAnswer): void {
    this.remove(key);
    if (entry.body.length > this.maxEntryBytes) return;
    this.entries.set(key, entry);
    this.newest = entry;
    this.bytes += entry.body.length;
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(oldest);
    }
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.body.length;
  }
}

/**
 * The cache's key of a read: its URL, and the service's day for an answer that depends on
 * "today" (a request list's AsOf stays true in a cached answer: nothing changed after it).
 */
export function cacheKey(ctx: ServiceContext, url: string, target: Target): string {
  const byDay = target.operation === 'requestlist' || target.operation === 'requeststats';
  return `${url}|${byDay ? ctx.time.day(ctx.clock.now()) : ''}`;
}

/**
 * The embedded service's cached reads at plain `/pipelineapi/...`, as http/cached-reads.ts
 * asks for them before Fastify's request cycle: a GET the cache holds at the current data
 * version, for a plain reader (the key with a live SESSIONID, or the cookie alone). Anything
 * else is undefined and goes through the full cycle, which also fills the cache.
 */
export function cachedReads(ctx: ServiceContext, answers: AnswerCache): CachedReadResolver {
  return (url, headers, cookie) => {
    if (!url.startsWith(`${PIPELINE_API_PREFIX}/`)) return undefined;
    const target = parseTarget(url);
    const operation = target.operation;
    if (operation === undefined || target.type === undefined) return undefined;
    // The inbox changes without the databases knowing: never from the cache (routes.ts).
    if (OPERATIONS[operation] !== 'GET' || operation === 'inbox') return undefined;
    const hit = answers.get(cacheKey(ctx, url, target));
    if (!hit || hit.version !== ctx.dbs.version()) return undefined;
    const via = plainReader(ctx.access, headers, cookie);
    if (via === undefined) return undefined;
    return { body: hit.body, contentType: CONTENT_TYPES[target.type], operation, via };
  };
}
