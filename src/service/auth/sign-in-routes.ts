import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuditSubject } from '../audit/audit-log.ts';
import { ApiError, CommonCode } from '../errors.ts';
import { field, merged } from './session-params.ts';
import type { SessionKind, SessionStore } from './sessions.ts';

// What sign-in and sign-out share between Part A (mcapi) and Part B (flowapi): each Part
// keeps its own fields, codes and answers.

/**
 * The route config flag of a route that refuses its method outright, whatever the call
 * carries: http/query-credentials.ts lets its 405 answer first.
 */
export const REFUSES_METHOD = 'refusesMethod';

/**
 * Sign-in and sign-out take POST alone: a password or session id in a URL ends up in
 * browser histories and proxies' logs. Another method on `<prefix>/auth/login` or
 * `<prefix>/auth/logout` is 405, before any field is read.
 */
export function refuseSignInWithoutPost(app: FastifyInstance, prefix: string): void {
  for (const [path, message] of [
    ['login', 'Sign in with POST and a form body: a password never goes in a URL.'],
    ['logout', 'Sign out with POST and a form body: a session id never goes in a URL.'],
  ] as const)
    app.route({
      method: ['GET', 'PUT', 'DELETE', 'PATCH'],
      url: `${prefix}/auth/${path}`,
      // Its 405 comes before the refusal of a password in the query string (it says why).
      config: { [REFUSES_METHOD]: true },
      handler: () => {
        throw new ApiError(405, CommonCode.MethodNotAllowed, message, { allow: 'POST' });
      },
    });
}

/**
 * The name a sign-in tries, as its field `name` gives it, written into the audit's subject
 * before it is checked: failed attempts matter most to an audit, and one refused for what
 * the name holds (a NUL, a line feed, 1 MB of it) is recorded too, under that name with its
 * control characters written out (`\u0000`) and cut to the audit's bound.
 */
export function signInName(
  params: Record<string, unknown>,
  name: string,
  subject: AuditSubject,
  codes: { status: number; missing: number },
): string {
  const tried = params[name];
  if (typeof tried === 'string' && tried !== '') subject.userName = tried;
  const userName = field(params, name, codes, true);
  subject.userName = userName;
  return userName;
}

/**
 * Ends the session a sign-out's `sessionId` field names, writing whose it was into the
 * audit's subject; `codes` are the Part's (a missing field, no such session: 404).
 * Returns the session id.
 */
export async function signOutNamed(
  sessions: SessionStore,
  kind: SessionKind,
  request: FastifyRequest,
  subject: AuditSubject,
  codes: { missing: { status: number; missing: number }; sessionNotFound: number },
): Promise<string> {
  const sessionId = field(merged(request.query, request.body), 'sessionId', codes.missing, true);
  const signedOut = await sessions.signOut(kind, sessionId, (userName) =>
    Object.assign(subject, { userName, via: 'session' }),
  );
  if (!signedOut) throw new ApiError(404, codes.sessionNotFound, 'No such session.');
  return sessionId;
}
