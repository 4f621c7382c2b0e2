import { once } from 'node:events';
import Provider, { type FindAccount } from 'oidc-provider';
import { freePort } from './child.ts';

/** A real OpenID provider (oidc-provider) on a loopback port, for sign-in tests. */
export interface TestProvider {
  readonly issuer: string;
  close(): Promise<void>;
}

export const TEST_CLIENT = { id: 'pipeline-dashboard', secret: 'test-client-secret-5f1c9a0e' };

/**
 * Starts the provider with one confidential client allowed to return to `redirectUris`.
 * Its development sign-in page accepts any password for the login names in `accounts`,
 * whose claims it then issues (in the ID token and from userinfo).
 */
export async function startOidcProvider(options: {
  redirectUris: readonly string[];
  /** Where the provider may send a browser back after ending its session (RP-initiated logout). */
  postLogoutRedirectUris?: readonly string[];
  accounts: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}): Promise<TestProvider> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const findAccount: FindAccount = async (_context, id) => {
    const claims = options.accounts[id];
    if (!claims) return undefined;
    return { accountId: id, claims: async () => ({ sub: id, ...claims }) };
  };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: TEST_CLIENT.id,
        client_secret: TEST_CLIENT.secret,
        redirect_uris: [...options.redirectUris],
        post_logout_redirect_uris: [...(options.postLogoutRedirectUris ?? [])],
        response_types: ['code'],
        grant_types: ['authorization_code'],
      },
    ],
    findAccount,
    claims: {
      openid: ['sub'],
      profile: ['preferred_username', 'name', 'groups'],
      email: ['email', 'email_verified'],
    },
    // Claims in the ID token as well as from userinfo, as many providers do.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
    cookies: { keys: ['oidc-test-cookie-key-only-for-tests'] },
    features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
  });
  const server = provider.listen(port);
  await once(server, 'listening');
  return {
    issuer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
