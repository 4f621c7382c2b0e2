/** A `--database` URL, checked, and the same URL with its password masked for messages. */
export interface DatabaseUrl {
  readonly url: string;
  /** For /readyz, logs and errors: the password replaced by `***`. */
  readonly masked: string;
}

/** The URL with any password masked, however malformed the rest is. */
export function maskPassword(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/?#@]*:)[^@/?#]*@/i, '$1***@');
}

/**
 * Reads `--database` (contract section 11): a `postgres://user:password@host:port/db` URL.
 * Anything else stops the start with the flag and the reason, the password masked.
 */
export function parseDatabaseUrl(text: string): DatabaseUrl {
  const masked = maskPassword(text);
  const refuse = (reason: string): never => {
    throw new Error(`--database ${masked}: ${reason}`);
  };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse('not a URL; give postgres://user:password@host:port/database');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    refuse(`a postgres:// URL is expected, not ${url.protocol}//`);
  if (url.hostname === '') refuse('the URL names no host');
  if (url.pathname.replace(/^\//, '') === '') refuse('the URL names no database (…/database)');
  if (url.username === '') refuse('the URL names no user');
  return { url: text, masked: maskPassword(url.href) };
}
