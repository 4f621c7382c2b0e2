import type { GuessingLimit } from '../auth/guessing-limit.ts';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { OidcProviderAnswer, OidcSessionAnswer, Role } from '../../kit/index.ts';
import * as openid from 'openid-client';
import { anonymousSubject } from '../audit/audit-log.ts';
import { redactText } from '../audit/redact.ts';
import type { ServiceContext } from '../context.ts';
import { ApiError, McCode } from '../errors.ts';
import { externalBase } from '../http/base-path.ts';
import { roleFor, START_LIMIT, type OidcSettings } from '../auth/oidc-config.ts';
import type { ProviderSignOut } from '../auth/oidc-sign-out.ts';
import { replaceGrantedRoles } from '../db/system/service-roles.ts';
import { signInExternalUser, USER_NAME } from '../auth/users.ts';
import { send } from './respond.ts';

/*
 * OpenID Connect sign-in (authorization code with PKCE, a confidential client): the server
 * talks to the provider, the browser only ever sees the provider's pages and a one-time
 * handoff code; the client secret stays here. A signed-in person gets a Part A session,
 * exactly like a password sign-in.
 *
 *   /mcapi/auth/oidc/start     → 302 to the provider (state, nonce, PKCE kept here, the
 *                                state also in a cookie of this browser)
 *   /mcapi/auth/oidc/callback  → 302 to /sign-in#oidc=<handoff>: a session or the reason
 *   /mcapi/auth/oidc/session   → the handoff's session (or its reason), once
 */

export const OIDC_PREFIX = '/mcapi/auth/oidc';
const STATE_COOKIE = 'oidc_state';
const PENDING_MS = 10 * 60_000;
const HANDOFF_MS = 60_000;
/**
 * Bounds the memory strangers can fill by starting sign-ins they never finish, and the
 * handoffs of callbacks anyone can call. A full set makes room by forgetting its oldest:
 * nobody is refused because others started too many (each address has its own limit).
 */
const MAX_PENDING = 10_000;
const SESSION_MINUTES = 30;

interface Pending {
  /** The client address that started it, whose limit it counts against. */
  readonly address: string;
  readonly verifier: string;
  readonly nonce: string;
  readonly next: string;
  readonly redirectUri: string;
  readonly expires: number;
}

type Outcome =
  | {
      readonly sessionId: string;
      readonly userName: string;
      readonly role: Role;
      readonly expires: number;
    }
  | { readonly refused: string; readonly expires: number };

/** Reads the provider's discovery document; the server does not start without it. */
export async function discoverProvider(settings: OidcSettings): Promise<openid.Configuration> {
  const insecure = new URL(settings.issuer).protocol === 'http:';
  try {
    return await openid.discovery(
      new URL(settings.issuer),
      settings.clientId,
      undefined,
      openid.ClientSecretBasic(settings.clientSecret),
      insecure ? { execute: [openid.allowInsecureRequests] } : undefined,
    );
  } catch (error) {
    throw new Error(
      `--oidc-issuer: no OpenID provider answered at ${settings.issuer}/.well-known/openid-configuration (${(error as Error).message})`,
    );
  }
}

/** A path of this dashboard to go to after sign-in; anything else is the overview. */
function safeNext(value: unknown): string {
  return typeof value === 'string' && /^\/(?![/\\])[^\s\\]*$/.test(value) && value.length < 2048
    ? value
    : '/';
}

/**
 * The name the claims give, only a label (the person is the issuer and `sub`): the first
 * of preferred_username, name, email (when the provider says it verified it), sub that
 * fits a user name here.
 */
function userNameOf(claims: Readonly<Record<string, unknown>>): string | undefined {
  const verified = claims.email_verified === true || claims.email_verified === 'true';
  return [
    claims.preferred_username,
    claims.name,
    verified ? claims.email : undefined,
    claims.sub,
  ].find((v): v is string => typeof v === 'string' && USER_NAME.test(v));
}

export function oidcRoutes(
  server: FastifyInstance,
  ctx: ServiceContext,
  /** The handoff proves who one is too: its tries count with every sign-in's. */
  guessing: GuessingLimit,
  oidc:
    | {
        settings: OidcSettings;
        provider: openid.Configuration;
        publicUrl?: string | undefined;
        signOut: ProviderSignOut;
      }
    | undefined,
): void {
  // Both in the order they were made, which is the order they expire in (a fixed lifetime
  // each): sweeping stops at the first one still alive.
  const pending = new Map<string, Pending>();
  const handoffs = new Map<string, Outcome>();
  /** Each address's unfinished sign-ins (their states), oldest first. */
  const startedBy = new Map<string, string[]>();
  const forget = (state: string) => {
    const flow = pending.get(state);
    if (!flow) return;
    pending.delete(state);
    const states = startedBy.get(flow.address) ?? [];
    states.splice(states.indexOf(state), 1);
    if (states.length === 0) startedBy.delete(flow.address);
  };
  const sweep = (now: number) => {
    for (const [k, v] of pending) {
      if (v.expires > now) break;
      forget(k);
    }
    for (const [k, v] of handoffs) {
      if (v.expires > now) break;
      handoffs.delete(k);
    }
  };
  const configured = () => {
    if (!oidc)
      throw new ApiError(404, McCode.NotFound, 'Single sign-on is not configured on this server.');
    return oidc;
  };

  // For the sign-in page: whether to show "Sign in with <name>".
  server.get(OIDC_PREFIX, async (_request, reply) =>
    send<OidcProviderAnswer>(
      reply,
      oidc ? { enabled: true, name: oidc.settings.name } : { enabled: false },
    ),
  );

  server.get(`${OIDC_PREFIX}/start`, async (request, reply) => {
    const { provider, publicUrl, settings } = configured();
    const now = ctx.clock.now().getTime();
    sweep(now);
    // One address cannot use up the sign-ins of everyone: past its own limit it waits
    // until one of its sign-ins ends or expires; others are not held up by it.
    const mine = startedBy.get(request.ip) ?? [];
    if (mine.length >= (settings.startLimit ?? START_LIMIT)) {
      const oldest = pending.get(mine[0] as string);
      const seconds = Math.max(1, Math.ceil(((oldest?.expires ?? now) - now) / 1000));
      throw new ApiError(
        429,
        McCode.TooManyRequests,
        `Too many sign-ins started from this address and not finished; finish one, or try again in ${seconds} s.`,
        { 'retry-after': String(seconds) },
      );
    }
    while (pending.size >= MAX_PENDING) forget(pending.keys().next().value as string);
    const verifier = openid.randomPKCECodeVerifier();
    const state = openid.randomState();
    const nonce = openid.randomNonce();
    // Under --base-path, the callback is under it too (http/base-path.ts).
    const base = publicUrl ?? externalBase(request);
    const redirectUri = `${base}${OIDC_PREFIX}/callback`;
    const next = safeNext((request.query as Record<string, unknown>).next);
    pending.set(state, {
      address: request.ip,
      verifier,
      nonce,
      next,
      redirectUri,
      expires: now + PENDING_MS,
    });
    mine.push(state);
    startedBy.set(request.ip, mine);
    const url = openid.buildAuthorizationUrl(provider, {
      redirect_uri: redirectUri,
      scope: 'openid profile email',
      code_challenge: await openid.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    // Ties the answer to the browser that asked: a callback link from someone else's
    // sign-in (login CSRF) does not carry it. Lax: the provider's redirect is a top-level GET.
    void reply.setCookie(STATE_COOKIE, state, {
      path: OIDC_PREFIX,
      httpOnly: true,
      sameSite: 'lax',
      secure: base.startsWith('https:'),
      maxAge: PENDING_MS / 1000,
    });
    return reply.redirect(url.href, 302);
  });

  server.get(`${OIDC_PREFIX}/callback`, async (request, reply) => {
    const { settings, provider, signOut } = configured();
    const query = request.query as Record<string, unknown>;
    const state = typeof query.state === 'string' ? query.state : '';
    const flow = pending.get(state);
    forget(state);
    const now = ctx.clock.now().getTime();
    const subject = anonymousSubject();
    let outcome: Outcome;
    try {
      outcome = await ctx.audit.around(
        request,
        { operation: 'mc.oidc-login', service: null, parameters: { provider: settings.name } },
        subject,
        async () => {
          if (!flow || flow.expires <= now || request.cookies[STATE_COOKIE] !== state)
            throw new ApiError(
              403,
              McCode.LoginFailed,
              'This sign-in was not started from this browser, or took too long; start again.',
            );
          if (typeof query.error === 'string')
            throw new ApiError(403, McCode.LoginFailed, `${settings.name} refused the sign-in.`);
          const callbackUrl = new URL(flow.redirectUri);
          callbackUrl.search = new URLSearchParams(query as Record<string, string>).toString();
          const tokens = await openid.authorizationCodeGrant(provider, callbackUrl, {
            pkceCodeVerifier: flow.verifier,
            expectedState: state,
            expectedNonce: flow.nonce,
          });
          const idClaims: Record<string, unknown> = tokens.claims() ?? {};
          // The role claim is often only in the userinfo answer.
          const claims =
            typeof idClaims.sub === 'string'
              ? {
                  ...(await openid.fetchUserInfo(provider, tokens.access_token, idClaims.sub)),
                  ...idClaims,
                }
              : idClaims;
          const userName = userNameOf(claims);
          subject.userName = userName ?? null;
          if (typeof idClaims.sub !== 'string' || !userName)
            throw new ApiError(
              403,
              McCode.LoginFailed,
              `${settings.name} sent no usable user name.`,
            );
          const decided = roleFor(claims, settings);
          if ('refused' in decided) throw new ApiError(403, McCode.LoginFailed, decided.refused);
          // The person is the provider's account (issuer and sub of the ID token, which
          // openid-client checked); the name is a label that never makes them someone else.
          const signedIn = await signInExternalUser(
            ctx.shared,
            {
              issuer: provider.serverMetadata().issuer,
              subject: idClaims.sub,
              name: userName,
              role: decided.role,
            },
            new Date(now).toISOString(),
          );
          if ('refused' in signedIn) throw new ApiError(403, McCode.LoginFailed, signedIn.refused);
          const { user } = signedIn;
          // Its roles per service, as the mapping gives them now (contract section 12).
          await replaceGrantedRoles(ctx.shared, user.name, decided.services);
          subject.userName = user.name;
          subject.via = 'session';
          // The same idle timeout as a password sign-in's default (contract section 4).
          const sessionId = await ctx.sessions.open('mc', user.id, SESSION_MINUTES);
          signOut.remember(sessionId);
          return { sessionId, userName: user.name, role: user.role, expires: now + HANDOFF_MS };
        },
      );
    } catch (error) {
      const refused =
        error instanceof ApiError && error.httpStatus < 500
          ? error.message
          : `The sign-in with ${settings.name} failed (${(error as Error).message}).`;
      // The provider's words may quote the callback's URL, code and all.
      request.log.warn({ reason: redactText(refused) }, 'single sign-on refused');
      outcome = { refused, expires: now + HANDOFF_MS };
    }
    const handoff = randomBytes(24).toString('base64url');
    // Anyone can call the callback: the oldest handoffs make room, memory stays bounded.
    sweep(now);
    while (handoffs.size >= MAX_PENDING) handoffs.delete(handoffs.keys().next().value as string);
    handoffs.set(handoff, outcome);
    void reply.clearCookie(STATE_COOKIE, { path: OIDC_PREFIX });
    const next = encodeURIComponent(flow?.next ?? '/');
    return reply.redirect(`/sign-in?next=${next}#oidc=${handoff}`, 302);
  });

  // The sign-in page trades the handoff for the session (or the reason) once.
  server.get(`${OIDC_PREFIX}/session`, async (request: FastifyRequest, reply) => {
    configured();
    await guessing.take(request.ip);
    const code = (request.query as Record<string, unknown>).code;
    const outcome = typeof code === 'string' ? handoffs.get(code) : undefined;
    if (typeof code === 'string') handoffs.delete(code);
    if (!outcome || outcome.expires <= ctx.clock.now().getTime())
      throw new ApiError(403, McCode.LoginFailed, 'This sign-in has expired; start again.');
    if ('refused' in outcome) throw new ApiError(403, McCode.LoginFailed, outcome.refused);
    return send<OidcSessionAnswer>(reply, {
      sessionId: outcome.sessionId,
      userName: outcome.userName,
      role: [outcome.role],
      serverName: ctx.serverName,
      serverId: ctx.serverId,
    });
  });
}
