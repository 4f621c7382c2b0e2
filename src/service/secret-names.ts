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
