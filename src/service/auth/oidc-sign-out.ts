import { createHash } from 'node:crypto';
import * as openid from 'openid-client';

/*
 * Signing out of a session that came from the OpenID provider also ends the person's
 * session there (OpenID Connect RP-Initiated Logout 1.0), when the provider has an
 * end_session_endpoint: the logout answer gives the provider's URL, the browser goes there,
 * and the provider sends it back to our sign-in page. Otherwise the next "Sign in with…"
 * would pass straight through the provider's still-open session.
 *
 * The URL names our client (`client_id`), not the person's ID token (`id_token_hint`): no
 * token ever reaches the browser. Providers then ask the person to confirm the sign-out.
 */

/** Bounds the memory: the oldest entries go first (their sessions are the likeliest ended). */
const MAX_REMEMBERED = 10_000;

const hashOf = (id: string): string => createHash('sha256').update(id, 'utf8').digest('base64url');

export class ProviderSignOut {
  /** Hashes of the session ids opened from the provider's sign-in, oldest first. */
  private readonly fromProvider = new Set<string>();

  constructor(
    private readonly provider: openid.Configuration,
    /** The URL browsers reach this server at (--public-url), else the request's own. */
    private readonly publicUrl: string | undefined,
  ) {}

  /** The provider can end its sessions at our asking. */
  get supported(): boolean {
    return typeof this.provider.serverMetadata().end_session_endpoint === 'string';
  }

  /** A session opened from the provider's sign-in. */
  remember(sessionId: string): void {
    while (this.fromProvider.size >= MAX_REMEMBERED)
      this.fromProvider.delete(this.fromProvider.values().next().value as string);
    this.fromProvider.add(hashOf(sessionId));
  }

  /**
   * The provider's end-session URL for a session being signed out, coming back to our
   * sign-in page; undefined for a local session or a provider without the endpoint.
   * Forgets the session either way.
   */
  endSessionUrl(sessionId: string, requestBase: string): string | undefined {
    const known = this.fromProvider.delete(hashOf(sessionId));
    if (!known || !this.supported) return undefined;
    const base = this.publicUrl ?? requestBase;
    // buildEndSessionUrl adds client_id.
    return openid.buildEndSessionUrl(this.provider, {
      post_logout_redirect_uri: `${base}/sign-in`,
    }).href;
  }
}
