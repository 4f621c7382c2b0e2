import type { Sql } from '../db/sql.ts';
import { getSetting } from '../db/system/settings.ts';
import { sessionRow } from '../db/system/users.ts';
import { keyCredential } from './api-access.ts';
import { tokenEndedWhy } from './tokens.ts';

// Work done later on someone's behalf (a bulk job, issue 39) runs under the credential it
// started with, and stops once that credential ends, as a single call would be refused then.
// A job keeps a reference to it (Caller.credential), never a secret: a session's or a
// token's stored hash, the shared key's digest. Everything is read from the store at each
// check, so an end made on another gateway of the same store counts at once.

/**
 * Why the credential `reference` names can no longer act at `now` ("the personal token ci was
 * revoked at …"); undefined while it still can, or when there is no reference (a job started
 * before references were kept: only its starter's role is checked then).
 */
export async function credentialEndedWhy(
  sql: Sql,
  reference: string | null,
  now: Date,
): Promise<string | undefined> {
  if (reference === null) return undefined;
  if ((await getSetting(sql, 'apiEnabled')) !== 'true')
    return 'the pipeline API was disabled in the settings';
  const space = reference.indexOf(' ');
  const kind = space < 0 ? reference : reference.slice(0, space);
  const value = space < 0 ? '' : reference.slice(space + 1);
  switch (kind) {
    case 'session': {
      const session = await sessionRow(sql, value, 'mc');
      return session && session.EXPIRES > now.getTime()
        ? undefined
        : 'the session it was started in ended (signed out, expired, or ended by a password reset)';
    }
    case 'token':
      return tokenEndedWhy(sql, value, now);
    // A SESSIONID cookie is named by the key that minted it: it ends with that key.
    case 'key': {
      if ((await getSetting(sql, 'sharedKeyEnabled')) === 'false')
        return 'the shared key was turned off by an administrator';
      const key = await getSetting(sql, 'apiKey');
      return key !== null && keyCredential(key) === reference
        ? undefined
        : 'the shared key it was started with was reissued';
    }
    default:
      return `the credential it was started with is of a kind this server does not know (${kind})`;
  }
}
