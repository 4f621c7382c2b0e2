import type { IncomingMessage } from 'node:http';
import { LogController, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { holdsToken, isSecretName, REDACTED } from '../secret-names.ts';

// Secrets by name (secret-names.ts) kept out of the service log's URLs and lines.

/** Longest URL a log line carries; a longer one is cut (a 64 KB query string is no log line). */
const MAX_LOGGED_URL = 2048;

/**
 * A name as written in a URL, read leniently: `+` and each `%XX` decoded byte by byte, so
 * `p%61ssword` or a name with a stray `%` still shows what it is.
 */
function readName(raw: string): string {
  return raw
    .replace(/\+/g, ' ')
    .replace(/%([0-9a-f]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** A URL with the value of every secret query field replaced, and cut to a loggable length. */
export function redactUrl(url: string): string {
  const at = url.indexOf('?');
  const redacted =
    at < 0
      ? url
      : `${url.slice(0, at)}?${url
          .slice(at + 1)
          .split('&')
          .map((part) => {
            const equals = part.indexOf('=');
            const name = equals < 0 ? part : part.slice(0, equals);
            return isSecretName(readName(name)) || holdsToken(readName(part))
              ? `${name}=${REDACTED}`
              : part;
          })
          .join('&')}`;
  return redacted.length > MAX_LOGGED_URL
    ? `${redacted.slice(0, MAX_LOGGED_URL)}…(${redacted.length} characters)`
    : redacted;
}

/**
 * Free text (an error's message, which may quote a URL or a form) with the value of every
 * `name=value` whose name is a secret's replaced.
 */
export function redactText(text: string): string {
  return text.replace(/([\w.%+-]+)=([^&\s"'<>,;()]*)/g, (whole, name: string, value: string) =>
    isSecretName(readName(name)) || holdsToken(readName(value)) ? `${name}=${REDACTED}` : whole,
  );
}

/**
 * Fastify's request serializer (method, url, host, address, port), its URL redacted. Fastify
 * hands it its own request; a raw Node request (from a line of other code) reads the same.
 */
function requestForLog(request: FastifyRequest): Record<string, unknown> {
  const either = request as Partial<FastifyRequest> & Pick<IncomingMessage, 'socket'>;
  return {
    method: either.method,
    url: redactUrl(either.url ?? ''),
    host: either.host,
    remoteAddress: either.ip ?? either.socket?.remoteAddress,
    remotePort: either.socket?.remotePort,
  };
}

/**
 * Fastify's own log lines with redacted URLs: its default "route not found" line carries
 * the raw URL, query string and all (the server has its own 404 handler, but a line that
 * could leak a password should not depend on that).
 */
class RedactingLogController extends LogController {
  override routeNotFound(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.info(`Route ${request.method}:${redactUrl(request.url)} not found`);
  }
}

/**
 * The logger options of the server with secrets kept out of its lines: every `req` a line
 * carries (the access lines, "incoming request") shows its URL with secret query values
 * replaced. `false` stays false.
 */
export function redactingLogger(
  logger: FastifyServerOptions['logger'],
): Pick<FastifyServerOptions, 'logger' | 'logController'> {
  if (!logger) return { logger: false };
  const options = logger === true ? {} : logger;
  return {
    logger: { ...options, serializers: { ...options.serializers, req: requestForLog } },
    // Fastify's "incoming request" and "request completed" lines are replaced by one access
    // line per request (http/access-log.ts), which names the route and the person.
    logController: new RedactingLogController({ disableRequestLogging: true }),
  };
}
