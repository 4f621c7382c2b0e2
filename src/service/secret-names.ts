/*
 * Secrets by name, wherever a name and its value are written down: the audit log's
 * parameters and the service log's URLs. A name holding one of these words, in any case,
 * keeps its place and loses its value: `password=[redacted]`.
 */

/**
 * key, token, secret, password, session (the contract's words), and what else carries a
 * credential here: interfaces.md's key header (X-Pipelinewebapi), cookies, authorization
 * headers, and single sign-on's one-time `code` and `state` (the callback's and the handoff's).
 */
const SECRET_NAME =
  /key|token|secret|passw|session|cookie|pipelinewebapi|authori[sz]ation|credential|signature|nonce|verifier|^code$|^state$/i;

/** What a personal token begins with (auth/tokens.ts makes them: 32 random bytes follow). */
export const TOKEN_PREFIX = 'pdt_';

/** A personal token anywhere in a text, whatever name it came under (issue 39). */
const TOKEN_SHAPED = new RegExp(`${TOKEN_PREFIX}[A-Za-z0-9_-]{32,}`);

export const REDACTED = '[redacted]';

/** Whether a parameter or header of this name holds a secret. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** Whether a value holds one of our personal tokens, under any name (`?q=pdt_…`). */
export function holdsToken(value: string): boolean {
  return TOKEN_SHAPED.test(value);
}

/*
 * Credentials that came in a URL's query string are refused (issue 39, item 5): a URL is
 * kept by browser histories, proxies' logs and Referer headers, whatever this server
 * redacts in its own log. interfaces.md puts every credential elsewhere: Part C's key in the
 * X-Pipelinewebapi header, Parts A and B's session ids in X-As-SessionId and X-Fs-SessionId,
 * and sign-in's password in a POST's form body. Nothing it defines carries one in a query.
 * These are the names a credential goes by, compared without case and punctuation
 * (`X-Pipelinewebapi`, `api_key`, `Access-Token`). Single sign-on's `code` and `state`
 * belong in the callback's query (OAuth 2.0 puts them there), and a provider's
 * `session_state` is no session of ours: neither is among them.
 */
const KEY_PARAMETERS = new Set([
  'xpipelinewebapi',
  'pipelinewebapi',
  'apikey',
  'key',
  'token',
  'apitoken',
  'accesstoken',
  'authorization',
  'bearer',
]);
const SESSION_PARAMETERS = new Set(['sessionid', 'xassessionid', 'xfssessionid']);

/** Where a credential sent in a query string belongs instead. */
export interface CredentialPlace {
  /** What the parameter carries, in words: `the API key`. */
  readonly what: string;
  /** Where to send it: `the X-Pipelinewebapi header`. */
  readonly where: string;
}

/**
 * Where the credential that the query parameter `name`=`value` of a call to `path` carries
 * belongs, or undefined when it carries none.
 */
export function credentialInQuery(
  name: string,
  value: string,
  path: string,
): CredentialPlace | undefined {
  const bare = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (holdsToken(name) || holdsToken(value))
    return { what: 'a personal token', where: 'the X-Pipelinewebapi header' };
  if (KEY_PARAMETERS.has(bare))
    return { what: 'the API key', where: 'the X-Pipelinewebapi header' };
  if (bare.includes('passw') || bare === 'pwd')
    return { what: 'a password', where: 'a form field of a POST body' };
  if (SESSION_PARAMETERS.has(bare)) {
    const flow = path === '/api' || path.startsWith('/api/');
    if (/\/auth\/logout$/.test(path))
      return { what: 'a session id', where: 'a form field of a POST body' };
    return {
      what: 'a session id',
      where: `the ${flow ? 'X-Fs-SessionId' : 'X-As-SessionId'} header`,
    };
  }
  return undefined;
}
