import type { FastifyRequest } from 'fastify';

/**
 * The SESSIONID cookie's attributes: its name and `Path` are interfaces.md's; `Secure` when the
 * browser reached us over https, directly or through a proxy `--trust-proxy` names (Fastify's
 * `request.protocol` reads its X-Forwarded-Proto only then), as the sign-on cookie has it.
 */
export function sessionCookieOptions(request: FastifyRequest) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    secure: request.protocol === 'https',
  } as const;
}
