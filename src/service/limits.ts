/**
 * Bounds that keep one client, one input file or one answer from taking the whole process
 * (time, memory or connections). Each is a start-up option; docs/operations.md lists them.
 */
export interface ServiceLimits {
  /** Longest CSV record or JSON line, in characters; a longer one fails its request. */
  readonly maxRecordChars: number;
  /** Longest CSV field, in characters. */
  readonly maxFieldChars: number;
  /** Total size of the rendered answers kept for repeated reads. */
  readonly answerCacheBytes: number;
  /** Answers larger than this are served but never kept. */
  readonly answerCacheEntryBytes: number;
  /** Largest answer the service builds; a larger page is refused with 400 naming the limit. */
  readonly maxAnswerBytes: number;
  /** Open connections at once; more are closed as they arrive. */
  readonly maxConnections: number;
  /** Time a client has to send its request headers. */
  readonly headersTimeoutMs: number;
  /** Time a client has to send its whole request. */
  readonly requestTimeoutMs: number;
  /** How long an operator's table or cache change waits for a running Joint before 409. */
  readonly actionWaitMs: number;
  /** How long a gateway waits for an upstream's answer before 504. */
  readonly upstreamTimeoutMs: number;
  /** Largest answer a gateway reads from an upstream; a larger one is refused (502). */
  readonly upstreamMaxBytes: number;
  /**
   * Longest single value (an element's text, an attribute) a gateway reads from an upstream,
   * in characters (1 MiB of ASCII); a longer one ends the read (502).
   */
  readonly upstreamMaxValueChars: number;
  /** Calls at once from a gateway to one upstream. */
  readonly upstreamConcurrency: number;
}

const KIB = 1024;
const MIB = 1024 * KIB;

export const DEFAULT_LIMITS: ServiceLimits = {
  maxRecordChars: MIB,
  maxFieldChars: MIB,
  answerCacheBytes: 64 * MIB,
  answerCacheEntryBytes: 4 * MIB,
  maxAnswerBytes: 64 * MIB,
  maxConnections: 1000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  actionWaitMs: 2000,
  upstreamTimeoutMs: 15_000,
  upstreamMaxBytes: 256 * MIB,
  upstreamMaxValueChars: MIB,
  upstreamConcurrency: 4,
};

export const formatBytes = (bytes: number): string =>
  bytes >= MIB && bytes % MIB === 0
    ? `${bytes / MIB} MiB`
    : bytes >= KIB && bytes % KIB === 0
      ? `${bytes / KIB} KiB`
      : `${bytes.toLocaleString('en')} bytes`;
