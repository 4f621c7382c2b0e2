/*
 * Secrets by name, wherever a name and its value are written down: the audit log's
 * parameters and the service log's URLs. A name holding one of these words, in any case,
 * keeps its place and loses its value: `password=[redacted]`.
 */

/**
 * key, token, secret, password, session (the contract's words), and what else carries a
 * credential here: cookies, authorization headers, and single sign-on's one-time `code`
 * and `state` (the callback's and the handoff's).
 */
const SECRET_NAME =
  /key|token|secret|passw|session|cookie|authori[sz]ation|credential|signature|nonce|verifier|^code$|^state$/i;

export const REDACTED = '[redacted]';

/** Whether a parameter or header of this name holds a secret. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}
