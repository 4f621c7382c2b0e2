import { answerFields, objectsOf, textOf, textOrNull, type Unread } from './liberal.ts';
import { ROLES, type Role } from './wire.ts';

// Personal API tokens (contract section 12): each person's own, for scripts that act as
// them. `GET /mcapi/tokens` lists them (never their values), `POST /mcapi/tokens` creates
// one (its value in that answer alone), `DELETE /mcapi/tokens/<id>` revokes one.

/** A personal API token as its owner lists it: never its value. */
export interface PersonalToken {
  readonly id: number;
  readonly name: string;
  readonly role: Role;
  /** The one service it acts on, or null for all its owner's. */
  readonly service: string | null;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly lastUsedAt: string | null;
}

/** A new token: its value is in this answer alone. */
export type NewToken = PersonalToken & { readonly token: string };

/** Who ended a token: its owner, an administrator, a password reset, the users command. */
export const REVOKED_BY = ['owner', 'administrator', 'reset', 'cli'] as const;
export type RevokedBy = (typeof REVOKED_BY)[number] | 'unknown';

/** A token revoked before its expiry, as its owner's list still shows it for a while. */
export interface RevokedToken extends PersonalToken {
  readonly revokedAt: string;
  /** Who ended it; `unknown` for a word this kit does not know, or none. */
  readonly revokedBy: RevokedBy;
  /** The administrator who did, when one did. */
  readonly revokedByName: string | null;
  /** The same in the server's words, for a script ("ended by a password reset"). */
  readonly why: string;
}

/**
 * The data of `GET /mcapi/tokens[?user=NAME]`, newest first: the live tokens, and those revoked
 * lately (a server that keeps no such list sends none: read as empty).
 */
export interface TokensAnswer {
  readonly tokens: readonly PersonalToken[];
  readonly revoked: readonly RevokedToken[];
}

/** The data of `DELETE /mcapi/tokens/<id>`. */
export interface RevokedTokenAnswer {
  readonly id: number;
  readonly revoked: true;
}

/** What a person asks of a new token (the fields of `POST /mcapi/tokens`). */
export interface TokenRequest {
  readonly name: string;
  readonly expiresInDays: number;
  readonly role: Role;
  /** One service, or '' for all the owner's. */
  readonly service: string;
}

/** A request's form fields. @example tokenRequestData({ name: 'ci', expiresInDays: 30, role: 'operator', service: '' }) */
export function tokenRequestData(asked: TokenRequest): Record<string, string> {
  return {
    name: asked.name,
    expiresInDays: String(asked.expiresInDays),
    role: asked.role,
    ...(asked.service ? { service: asked.service } : {}),
  };
}

/** A role this kit does not know reads as the least one: a newer server's word never offers more. */
const roleOrViewer = (value: unknown): Role => ROLES.find((role) => role === value) ?? 'viewer';

const tokenOf = (t: Unread<PersonalToken>): PersonalToken => ({
  id: Number(t.id ?? 0),
  name: textOf(t.name),
  role: roleOrViewer(t.role),
  service: textOrNull(t.service),
  createdAt: textOf(t.createdAt),
  expiresAt: textOf(t.expiresAt),
  lastUsedAt: textOrNull(t.lastUsedAt),
});

/** The data of `GET /mcapi/tokens`, read liberally. @example decodeTokens(await mc.read('/tokens')) */
export function decodeTokens(data: unknown): TokensAnswer {
  const answer = answerFields<TokensAnswer>(data, '/mcapi/tokens');
  return {
    tokens: objectsOf<PersonalToken>(answer.tokens, 'tokens').map(tokenOf),
    revoked:
      answer.revoked === undefined
        ? []
        : objectsOf<RevokedToken>(answer.revoked, 'revoked').map((t) => ({
            ...tokenOf(t),
            revokedAt: textOf(t.revokedAt),
            revokedBy: REVOKED_BY.find((by) => by === t.revokedBy) ?? 'unknown',
            revokedByName: textOrNull(t.revokedByName),
            why: textOf(t.why),
          })),
  };
}

/** The data of `POST /mcapi/tokens`: the token, with its value. */
export function decodeNewToken(data: unknown): NewToken {
  const answer = answerFields<NewToken>(data, 'POST /mcapi/tokens');
  return { ...tokenOf(answer), token: textOf(answer.token) };
}
