/*
 * `--log-format pretty`: pino's JSON lines made readable on a terminal, one line each:
 *
 *   2025-05-01T03:00:01.123Z INFO  request GET /mcapi/session 200 1.4 ms alice req-1
 *
 * A small formatter of our own rather than pino-pretty (a dependency for a dozen lines).
 * It formats what pino already wrote, so it sees only what the JSON format would have
 * carried: the redaction of secrets (audit/redact.ts) applies to both alike.
 */

const LEVELS: Readonly<Record<number, string>> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO ',
  40: 'WARN ',
  50: 'ERROR',
  60: 'FATAL',
};

/** Fields a line shows in its own places, not as name=value. */
const PLACED = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'reqId']);
/** An access line's fields (http/access-log.ts), shown in this order. */
const ACCESS = ['method', 'url', 'status', 'durationMs', 'user'] as const;

function value(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]*$/.test(v) && v !== '' ? v : JSON.stringify(v);
  return JSON.stringify(v) ?? String(v);
}

/** One JSON line of pino as one readable line (a line that is not JSON passes unchanged). */
export function prettyLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  // pino's time is epoch milliseconds; shown in UTC, saying so (the Z).
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString() : '';
  const level = LEVELS[entry.level as number] ?? String(entry.level);
  const parts = [time, level, String(entry.msg ?? '')];
  const access = entry.msg === 'request' && 'status' in entry;
  if (access) {
    parts.push(
      String(entry.method),
      String(entry.url),
      String(entry.status),
      `${String(entry.durationMs)} ms`,
      entry.user === null ? `(${value(entry.via ?? 'anonymous')})` : value(entry.user),
    );
  }
  if (entry.reqId !== undefined) parts.push(String(entry.reqId));
  for (const [name, v] of Object.entries(entry)) {
    if (PLACED.has(name) || (access && (ACCESS as readonly string[]).includes(name))) continue;
    // The URL asked for says more than the route's pattern; `via` is in the user's place.
    if (access && (name === 'via' || name === 'route')) continue;
    if (name === 'err' && v !== null && typeof v === 'object') {
      const err = v as { message?: unknown; stack?: unknown };
      parts.push(`\n${String(err.stack ?? err.message)}`.replaceAll('\n', '\n    '));
      continue;
    }
    parts.push(`${name}=${value(v)}`);
  }
  return `${parts.filter((p) => p !== '').join(' ')}\n`;
}

/** A destination for pino that writes each line formatted to `out`. */
export function prettyStream(out: NodeJS.WritableStream): { write(line: string): void } {
  return {
    write(chunk) {
      // pino writes one line per call; a call with several (it never does today) still works.
      for (const line of chunk.split('\n')) if (line !== '') out.write(prettyLine(line));
    },
  };
}
