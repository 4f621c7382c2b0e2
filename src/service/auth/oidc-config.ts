import { higherRole, ROLE_ORDER, ROLES, type Role } from '../../kit/wire.ts';

/** OpenID Connect sign-in, as the flags configure it (docs/operations.md "Single sign-on"). */
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

/**
 * Claim values to roles, and the role of anyone whose values match none (`*`); and claim
 * values to roles on one service (`prod-ops=prod:operator`, contract section 12).
 */
export interface RoleMapping {
  readonly byValue: ReadonlyMap<string, Role>;
  readonly otherwise: Role | undefined;
  /** Claim value → service id → the role it gives there. */
  readonly onService: ReadonlyMap<string, ReadonlyMap<string, Role>>;
}

/** A service id as the services file writes them (the embedded service is `local`). */
const SERVICE_ID = /^[a-z0-9-]{1,32}$/;

type Flags = Readonly<Record<string, string | undefined>>;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * `admins=administrator,devs=developer,*=operator,prod-ops=prod:operator`: each claim value
 * and the role it gives, by default or (`service:role`) on one service; `*` gives a default
 * role to everyone whose claim is there but matches nothing listed.
 */
export function parseRoleMapping(text: string): RoleMapping {
  const byValue = new Map<string, Role>();
  const onService = new Map<string, Map<string, Role>>();
  let otherwise: Role | undefined;
  for (const entry of text.split(',').map((e) => e.trim())) {
    const match = /^([^=]+)=(?:([^=:]+):)?([^=:]+)$/.exec(entry);
    if (!match)
      throw new Error(
        `--oidc-roles: ${JSON.stringify(entry)} is not value=role or value=service:role`,
      );
    const value = (match[1] as string).trim();
    const service = match[2]?.trim();
    const role = (match[3] as string).trim();
    if (!(ROLES as readonly string[]).includes(role))
      throw new Error(`--oidc-roles: ${JSON.stringify(role)} is not one of ${ROLES.join(', ')}`);
    if (service === undefined) {
      if (value === '*') otherwise = role as Role;
      else byValue.set(value, role as Role);
      continue;
    }
    if (!SERVICE_ID.test(service))
      throw new Error(
        `--oidc-roles: ${JSON.stringify(service)} in ${JSON.stringify(entry)} is not a service id`,
      );
    if (value === '*')
      throw new Error(`--oidc-roles: * gives a default role only, not one on ${service}`);
    const roles = onService.get(value) ?? new Map<string, Role>();
    roles.set(service, role as Role);
    onService.set(value, roles);
  }
  return { byValue, otherwise, onService };
}

/** The services a mapping names (to check against the services this server answers for). */
export function mappedServices(mapping: RoleMapping): Set<string> {
  return new Set([...mapping.onService.values()].flatMap((roles) => [...roles.keys()]));
}

/** A role on a service this server does not answer for is a typing mistake: said at start. */
export function checkMappedServices(
  oidc: OidcSettings | undefined,
  services: readonly { readonly id: string }[],
): void {
  for (const id of oidc ? mappedServices(oidc.roles) : [])
    if (!services.some((s) => s.id === id))
      throw new Error(
        `--oidc-roles: no service ${JSON.stringify(id)} here (its services: ${services.map((s) => s.id).join(', ')})`,
      );
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
 * The roles these claims give, or why they give none: no claim at all signs nobody in (not
 * even with `*`); several matching values give the highest of their roles, by default and
 * on each service. Values that give roles on services only give the viewer role elsewhere.
 */
export function roleFor(
  claims: Readonly<Record<string, unknown>>,
  settings: Pick<OidcSettings, 'roleClaim' | 'roles' | 'name'>,
): { role: Role; services: readonly { service: string; role: Role }[] } | { refused: string } {
  const values = claimValues(claims, settings.roleClaim);
  if (values === undefined || values.length === 0)
    return {
      refused: `${settings.name} sent no ${settings.roleClaim} claim for this account, so it has no role here. Ask an administrator to give it one.`,
    };
  const roles = values
    .map((v) => settings.roles.byValue.get(v))
    .filter((r): r is Role => r !== undefined);
  const onService = new Map<string, Role>();
  for (const value of values)
    for (const [service, role] of settings.roles.onService.get(value) ?? [])
      onService.set(service, higherRole(role, onService.get(service) ?? role));
  const rank = (role: Role) => ROLE_ORDER.indexOf(role);
  const best =
    roles.sort((x, y) => rank(y) - rank(x))[0] ??
    settings.roles.otherwise ??
    (onService.size > 0 ? 'viewer' : undefined);
  if (best === undefined)
    return {
      refused: `None of this account's ${settings.roleClaim} (${values.slice(0, 10).join(', ')}) gives a role here. Ask an administrator to give it one.`,
    };
  return {
    role: best,
    services: [...onService].map(([service, role]) => ({ service, role })).sort(byService),
  };
}

const byService = (a: { service: string }, b: { service: string }) =>
  a.service < b.service ? -1 : a.service > b.service ? 1 : 0;
