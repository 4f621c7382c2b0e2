import type { FastifyInstance, FastifyRequest } from 'fastify';
import { REFUSES_METHOD } from '../auth/sign-in-routes.ts';
import { escapeControls } from '../db/text.ts';
import { badParameter, type ApiError } from '../errors.ts';
import { credentialInQuery, holdsToken, REDACTED } from '../secret-names.ts';

// No credential travels in a URL (issue 39, item 5): a call that carries one in its query
// string is refused with 400, naming the parameter and where the credential goes instead,
// before anything authenticates it (a key that only a URL carries would otherwise be
// "no credentials", 401, which never says what is wrong). Bodies are not looked at:
// a form body is where a password belongs. The access line of such a call shows the
// parameter's value redacted (audit/redact.ts), as every secret-named one.
//
// Cached reads answered before Fastify's cycle (cached-reads.ts) need no check of their
// own: the cache is keyed by the whole URL, query string and all, and filled only by this
// cycle, which refuses such a URL before it is answered, so no such URL is ever held.

/** Longest parameter name a refusal quotes: any name may hold a token's value. */
const QUOTED_NAME = 64;

/**
 * A query parameter's name as a message quotes it: one line, within a length, and never a
 * personal token that was sent as a name (`?pdt_…`).
 */
function quoted(name: string): string {
  if (holdsToken(name)) return REDACTED;
  const line = escapeControls(name);
  return line.length > QUOTED_NAME ? `${line.slice(0, QUOTED_NAME - 1)}…` : line;
}

/** The refusal of the first credential among `query`'s fields for a call to `path`. */
export function queryCredentialRefusal(
  path: string,
  query: Readonly<Record<string, string | string[]>>,
): ApiError | undefined {
  for (const [name, given] of Object.entries(query)) {
    for (const value of Array.isArray(given) ? given : [given]) {
      const place = credentialInQuery(name, value, path);
      if (place !== undefined)
        return badParameter(
          quoted(name),
          `carries ${place.what} in the URL, where browser histories and proxies keep it: send it in ${place.where}`,
        );
    }
  }
  return undefined;
}

/** Refuses, on every route, a call whose query string carries a credential. */
export function refuseCredentialsInQuery(server: FastifyInstance): void {
  server.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    const at = request.url.indexOf('?');
    const config = request.routeOptions.config as unknown as Record<string, unknown> | undefined;
    const refusal =
      at < 0 || config?.[REFUSES_METHOD] === true
        ? undefined
        : queryCredentialRefusal(
            request.url.slice(0, at),
            request.query as Readonly<Record<string, string | string[]>>,
          );
    done(refusal);
  });
}
