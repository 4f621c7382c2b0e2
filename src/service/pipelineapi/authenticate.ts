import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  API_KEY_HEADER,
  ErrorCode,
  MC_SESSION_HEADER,
  SESSION_COOKIE,
  type OperationName,
} from '../../kit/wire.ts';
import type { ApiAccess } from '../auth/api-access.ts';
import type { Caller, ExtraAuthenticator } from '../auth/session-auth.ts';
import { sessionCookieOptions } from '../auth/session-cookie.ts';
import { isPersonalToken, tokenCaller } from '../auth/tokens.ts';
import type { ServiceContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { noteCaller } from '../http/access-log.ts';

// Who calls Part C (contract sections 4 and 12): a signed-in person, a personal token, the
// shared key, or the SESSIONID cookie the key's first answer set.

const READ_METHODS = new Set(['GET', 'HEAD']);

/**
 * True when the request shows that a page of another origin sent it (contract section 4):
 * an Origin other than this server's own, or a Sec-Fetch-Site other than same-origin or
 * none. Scripts that send neither header are not affected.
 */
function sentByAnotherOrigin(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== request.host;
  } catch {
    // "null" (a sandboxed frame, a file: page) or garbage: not this server's own origin.
    return true;
  }
}

/**
 * Who calls, and whether they may call this operation on this service (`service`: its id,
 * whose roles decide for a signed-in person; contract section 12). The caller is also noted
 * for the request's access line (http/access-log.ts).
 */
export async function authenticate(
  ...args: Parameters<typeof authenticateCaller>
): Promise<Caller> {
  const caller = await authenticateCaller(...args);
  const [, request] = args;
  noteCaller(request, caller);
  return caller;
}

/** Node gives header names in lower case; lowered once, not on every call. */
const KEY_HEADER = API_KEY_HEADER.toLowerCase();

async function authenticateCaller(
  ctx: ServiceContext,
  request: FastifyRequest,
  reply: FastifyReply,
  operation: OperationName,
  service: string,
  extra: ExtraAuthenticator | undefined,
  identified?: (caller: Caller) => void,
): Promise<Caller> {
  if (!ctx.access.enabled) {
    throw new ApiError(403, ErrorCode.ApiDisabled, 'The pipeline API is disabled in the settings.');
  }
  // Credentials never add up: a signed-in person's role alone decides, whatever key or
  // cookie the browser also sends, and such a call never mints a cookie.
  const viaSession = await extra?.(request, operation, service, identified);
  if (viaSession) return viaSession;
  const key = request.headers[KEY_HEADER];
  const cookie = request.cookies[SESSION_COOKIE];
  const cookieValid = cookie !== undefined && ctx.access.touchCookieSession(cookie);
  // A personal token acts as its person (contract section 12); it never mints a cookie,
  // which would carry the shared key's rights.
  if (typeof key === 'string' && isPersonalToken(key))
    return tokenCaller(ctx.shared, ctx.clock, key, operation, service, identified);
  if (key !== undefined) {
    if (typeof key === 'string' && !ctx.access.sharedKeyEnabled) {
      throw new ApiError(
        401,
        ErrorCode.BadCredentials,
        `The shared ${API_KEY_HEADER} key is disabled by an administrator; send a personal token (Settings page).`,
      );
    }
    if (typeof key !== 'string' || !ctx.access.keyMatches(key)) {
      throw new ApiError(
        401,
        ErrorCode.BadCredentials,
        `The ${API_KEY_HEADER} key is wrong or was reissued.`,
      );
    }
    if (!cookieValid) setSessionCookie(reply, ctx.access.openCookieSession());
    else restamp(ctx.access, reply, cookie);
    // The key in force: it just matched, and its digest is already at hand.
    return { via: 'key', credential: ctx.access.keyCredential() };
  }
  if (cookieValid) {
    // A browser attaches the cookie to calls from any page of the same site (another port
    // of the host included), so a change it authenticates must come from our own origin.
    if (!READ_METHODS.has(request.method) && sentByAnotherOrigin(request)) {
      throw new ApiError(
        403,
        ErrorCode.RoleForbidden,
        `A ${SESSION_COOKIE} cookie alone cannot authorise ${operation} from a page of another origin; send the ${API_KEY_HEADER} header.`,
      );
    }
    restamp(ctx.access, reply, cookie);
    // Minted by the key now in force (a reissued key ends its cookies): named by that key.
    return { via: 'cookie', credential: ctx.access.keyCredential() };
  }
  if (cookie !== undefined) {
    throw new ApiError(
      401,
      ErrorCode.BadCredentials,
      `The ${SESSION_COOKIE} session expired or ended; send the API key again.`,
    );
  }
  throw new ApiError(
    401,
    ErrorCode.NoCredentials,
    `No credentials: send the ${API_KEY_HEADER} header.`,
  );
}

function setSessionCookie(reply: FastifyReply, cookie: string): void {
  void reply.setCookie(SESSION_COOKIE, cookie, sessionCookieOptions(reply.request));
}

/** A live cookie used long after its stamp is set again, so that every gateway holds it. */
function restamp(access: ApiAccess, reply: FastifyReply, cookie: string): void {
  const restamped = access.restampedCookie(cookie);
  if (restamped !== undefined) setSessionCookie(reply, restamped);
}

/** Node gives header names in lower case. */
const PERSON_SESSION_HEADER = MC_SESSION_HEADER.toLowerCase();

/**
 * The caller of a read that needs nothing refused, minted or looked up beyond the shared
 * key and a live SESSIONID: the key with a live cookie ('key'), or a live cookie alone
 * ('cookie'), as authenticateCaller decides them for a GET. Anything else is undefined and
 * left to authenticateCaller: a person's session, a personal token, a key that does not
 * match, a cookie to mint or to set again, no cookie, the API switched off. For the cached
 * reads answered before Fastify's request cycle (http/cached-reads.ts); the same call on the
 * full cycle reaches the same caller (cached-reads.test.ts holds the two to each other).
 */
export function plainReader(
  access: ApiAccess,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  cookie: string | undefined,
): 'key' | 'cookie' | undefined {
  if (!access.enabled || headers[PERSON_SESSION_HEADER] !== undefined) return undefined;
  if (cookie === undefined || !access.touchCookieSession(cookie)) return undefined;
  // A cookie to be set again goes the full cycle, which sets it.
  if (access.cookieDue(cookie)) return undefined;
  const key = headers[KEY_HEADER];
  if (key === undefined) return 'cookie';
  if (typeof key !== 'string' || isPersonalToken(key) || !access.sharedKeyEnabled) return undefined;
  return access.keyMatches(key) ? 'key' : undefined;
}
