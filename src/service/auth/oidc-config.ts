import { ROLES, type Role } from '../../kit/wire.ts';

/** OpenID Connect sign-in, as the flags configure it (README "Single sign-on"). */
export interface OidcSettings {
  readonly issuer: string;
  readonly clientId: string;
  /** Kept on the server: never in an answer, a log line or the audit log. */
  readonly clientSecret: string;
  /** The claim holding the user's groups or roles; dots reach into objects (realm_access.roles). */
  readonly roleClaim: string;
  readonly roles: RoleMapping;
  /** Shown on the sign-in button: "Sign in with <name>". */
  readonly name: string;
  /**
   * Sign-ins one client address may have started and not finished at once (default
   * START_LIMIT); beyond it that address alone is answered 429 until one ends or expires.
   */
  readonly startLimit?: number | undefined;
}

/** Unfinished sign-ins per client address, unless the settings say otherwise. */
export const START_LIMIT = 30;

/** Claim values to roles, and the role of anyone whose values match none (`*`). */
export interface RoleMapping {
  readonly byValue: ReadonlyMap<string, Role>;
  readonly otherwise: Role | undefined;
}

type Flags = Readonly<Record<string, string | undefined>>;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * `admins=administrator,devs=developer,*=operator`: each claim value and the role it gives;
 * `*` gives a role to everyone whose claim is there but matches nothing listed.
 */
export function parseRoleMapping(text: string): RoleMapping {
  const byValue = new Map<string, Role>();
  let otherwise: Role | undefined;
  for (const entry of text.split(',').map((e) => e.trim())) {
    const match = /^([^=]+)=([^=]+)$/.exec(entry);
    if (!match) throw new Error(`--oidc-roles: ${JSON.stringify(entry)} is not value=role`);
    const value = (match[1] as string).trim();
    const role = (match[2] as string).trim();
    if (!(ROLES as readonly string[]).includes(role))
      throw new Error(`--oidc-roles: ${JSON.stringify(role)} is not one of ${ROLES.join(', ')}`);
    if (value === '*') otherwise = role as Role;
    else byValue.set(value, role as Role);
  }
  return { byValue, otherwise };
}

/** The OIDC settings from flags and environment, or undefined when none is set; throws naming the setting. */
export function readOidcSettings(flags: Flags): OidcSettings | undefined {
  const given = Object.entries(flags).filter(([, v]) => v !== undefined);
  if (given.length === 0) return undefined;
  const issuer = flags['oidc-issuer'];
  if (issuer === undefined)
    throw new Error(
      `--oidc-issuer is needed with ${given.map(([name]) => `--${name}`).join(', ')}`,
    );
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new Error(`--oidc-issuer must be a URL, not ${JSON.stringify(issuer)}`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname)))
    throw new Error('--oidc-issuer must be an https URL (plain http only on this machine)');
  const need = (name: string): string => {
    const value = flags[name];
    if (value === undefined || value === '')
      throw new Error(`--${name} is required with --oidc-issuer`);
    return value;
  };
  const roleClaim = flags['oidc-role-claim'] ?? 'groups';
  if (!/^[A-Za-z0-9_:/-]+(\.[A-Za-z0-9_:/-]+)*$/.test(roleClaim))
    throw new Error(
      `--oidc-role-claim must be a claim name (dots reach inside), not ${JSON.stringify(roleClaim)}`,
    );
  return {
    issuer: url.href.replace(/\/$/, ''),
    clientId: need('oidc-client-id'),
    clientSecret: need('oidc-client-secret'),
    roleClaim,
    roles: parseRoleMapping(need('oidc-roles')),
    name: flags['oidc-name'] ?? url.host,
  };
}

const RANK: Readonly<Record<Role, number>> = { operator: 0, developer: 1, administrator: 2 };

/** The claim's values: a string, or an array of strings, found by a dotted path. */
export function claimValues(
  claims: Readonly<Record<string, unknown>>,
  path: string,
): string[] | undefined {
  let value: unknown = claims;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  if (typeof value === 'string') return value === '' ? [] : value.split(/[\s,]+/).filter(Boolean);
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return undefined;
}

/**
 * The role these claims give, or why they give none: no claim at all signs nobody in (not
 * even with `*`); several matching values give the highest of their roles.
 */
export function roleFor(
  claims: Readonly<Record<string, unknown>>,
  settings: Pick<OidcSettings, 'roleClaim' | 'roles' | 'name'>,
): { role: Role } | { refused: string } {
  const values = claimValues(claims, settings.roleClaim);
  if (values === undefined || values.length === 0)
    return {
      refused: `${settings.name} sent no ${settings.roleClaim} claim for this account, so it has no role here. Ask an administrator to give it one.`,
    };
  const roles = values
    .map((v) => settings.roles.byValue.get(v))
    .filter((r): r is Role => r !== undefined);
  const best = roles.sort((x, y) => RANK[y] - RANK[x])[0] ?? settings.roles.otherwise;
  if (best === undefined)
    return {
      refused: `None of this account's ${settings.roleClaim} (${values.slice(0, 10).join(', ')}) gives a role here. Ask an administrator to give it one.`,
    };
  return { role: best };
}
