import { answerFields, textOf } from './liberal.ts';
import { ROLES, type Role } from './wire.ts';

// Single sign-on through the server's OpenID provider (an extension of our server): whether
// one is configured (`GET /mcapi/auth/oidc`), and the one-time trade of the handoff the
// provider's return carries for the session (`GET /mcapi/auth/oidc/session?code=`).

/** The data of `GET /mcapi/auth/oidc`. */
export type OidcProviderAnswer =
  { readonly enabled: true; readonly name: string } | { readonly enabled: false };

/** The data of `GET /mcapi/auth/oidc/session`: the session a handoff opened. */
export interface OidcSessionAnswer {
  readonly sessionId: string;
  readonly userName: string;
  /** The person's role, as a list as the login's `getRole` answers it. */
  readonly role: readonly Role[];
  readonly serverName: string;
  readonly serverId: string;
}

/** A session a single sign-on opened, as a client keeps it: the answer, with one role. */
export interface OidcSession extends Omit<OidcSessionAnswer, 'role'> {
  readonly role: Role;
}

/**
 * The provider's name to offer on the sign-in page, or null when none is configured (null,
 * not undefined: a query's data may not be undefined).
 * @example decodeOidcProvider(await mc.read('/auth/oidc')) // 'Company SSO' or null
 */
export function decodeOidcProvider(data: unknown): string | null {
  const answer = answerFields<{ enabled: unknown; name: unknown }>(data, '/mcapi/auth/oidc');
  return answer.enabled === true && typeof answer.name === 'string' ? answer.name : null;
}

/**
 * The data of `GET /mcapi/auth/oidc/session`. A role this kit does not know reads as
 * operator, the sign-in's default.
 */
export function decodeOidcSession(data: unknown): OidcSession {
  const answer = answerFields<OidcSessionAnswer>(data, '/mcapi/auth/oidc/session');
  const first: unknown = Array.isArray(answer.role) ? answer.role[0] : undefined;
  return {
    sessionId: textOf(answer.sessionId),
    userName: textOf(answer.userName),
    role: ROLES.find((role) => role === first) ?? 'operator',
    serverName: textOf(answer.serverName),
    serverId: textOf(answer.serverId),
  };
}
