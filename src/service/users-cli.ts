import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { read } from 'read';
import { ROLES } from '../kit/wire.ts';
import {
  addUser,
  isRole,
  listUsers,
  passwordProblem,
  removeUser,
  setPassword,
} from './auth/users.ts';
import { endTokensOf, listTokens, revokeTokenFor, WHY_ENDED } from './auth/tokens.ts';
import { systemClock } from './clock.ts';
import { stringFlags } from './config.ts';
import { openDatabases } from './db/databases.ts';
import { grantedRoles, grantRole, revokeRole } from './db/system/service-roles.ts';
import { userRowByLabel } from './db/system/users.ts';
import { SERVICE_ID } from './gateway/services.ts';
import { openSharedStore } from './store/shared-store.ts';

const USAGE = `Usage: npm run users -- <command> [options]

  add <name> --role <role>                    add a user with a default role: viewer,
                                              operator, developer or administrator
  grant <name> --service <id> --role <role>   give the user another role on one service
  revoke <name> --service <id>                take it back: the default role holds there again
  passwd <name> [--keep-tokens]               set a new password: ends the user's sessions and
                                              personal tokens (--keep-tokens keeps the tokens)
  tokens <name>                               list the user's personal tokens, and those
                                              revoked in the last 30 days with why
  revoke-token <name> <id>                    revoke one of the user's personal tokens
  remove <name>                               remove a user (their tokens go with them)
  list                                        list users with their roles, per service too

Options:
  --data <folder>   the service's data folder [PIPELINE_DATA_DIR] (default ./data)
  --database <url>  the gateways' shared PostgreSQL, postgres://user:password@host:port/db
                    [PIPELINE_DATABASE_URL] (default: the data folder's system database)
  --no-password     (add) a user without a password: flow service login only

Roles are read at each call: a grant or a revoke holds for open sessions and running bulk
jobs from their next call on. The embedded service's id is local.

The password is asked for without echo, or read from PIPELINE_USER_PASSWORD.
`;

async function askPassword(): Promise<string> {
  const fromEnv = process.env.PIPELINE_USER_PASSWORD;
  if (fromEnv !== undefined) {
    // An empty variable is a mistake, not a request for a user without a password
    // (that is --no-password, said out loud).
    const problem = passwordProblem(fromEnv);
    if (problem) throw new Error(`PIPELINE_USER_PASSWORD: ${problem}`);
    return fromEnv;
  }
  if (!process.stdin.isTTY)
    throw new Error('no terminal to ask for the password: set PIPELINE_USER_PASSWORD');
  const first = await read({ prompt: 'Password: ', silent: true, replace: '' });
  const second = await read({ prompt: 'Again: ', silent: true, replace: '' });
  if (first !== second) throw new Error('the two passwords differ');
  const problem = passwordProblem(first);
  if (problem) throw new Error(problem);
  return first;
}

/** The --service of grant and revoke: a service id, as the services file writes them. */
function serviceOf(value: string | undefined): string {
  if (value === undefined) throw new Error('--service <id> is needed (the embedded one is local)');
  if (!SERVICE_ID.test(value))
    throw new Error(
      `--service must be a service id (a-z, 0-9 and -, up to 32), not ${JSON.stringify(value)}`,
    );
  return value;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    options: {
      ...stringFlags(['data', 'database', 'role', 'service']),
      'no-password': { type: 'boolean' },
      'keep-tokens': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
  });
  const [command, name, tokenId] = positionals;
  if (values.help || !command) {
    process.stdout.write(USAGE);
    return;
  }
  const dbs = openDatabases(resolve(values.data ?? process.env.PIPELINE_DATA_DIR ?? 'data'));
  let store;
  try {
    store = await openSharedStore({
      databaseUrl: values.database ?? process.env.PIPELINE_DATABASE_URL,
      system: dbs.system,
      log: (message) => process.stderr.write(`${message}\n`),
    });
    const sql = store.sql;
    switch (command) {
      case 'list':
        for (const user of await listUsers(sql)) {
          // Roles per service as service:role, as the single sign-on mapping writes them.
          const perService = (await grantedRoles(sql, user.name))
            .map((granted) => `${granted.service}:${granted.role}`)
            .join(',');
          process.stdout.write(
            `${user.name}\t${user.role}${user.external ? `\t(single sign-on: ${user.issuer ?? 'unknown provider'})` : user.hasPassword ? '' : '\t(no password)'}${perService ? `\t${perService}` : ''}\n`,
          );
        }
        return;
      case 'add': {
        if (!name) throw new Error('add needs a user name');
        if (!values.role || !isRole(values.role))
          throw new Error(`--role must be one of ${ROLES.join(', ')}`);
        const password = values['no-password'] ? '' : await askPassword();
        await addUser(sql, name, password, values.role, new Date().toISOString());
        process.stdout.write(`added ${name} (${values.role})\n`);
        return;
      }
      case 'grant': {
        if (!name) throw new Error('grant needs a user name');
        const service = serviceOf(values.service);
        if (!values.role || !isRole(values.role))
          throw new Error(`--role must be one of ${ROLES.join(', ')}`);
        if (!(await grantRole(sql, name, service, values.role)))
          throw new Error(`user ${name} does not exist`);
        process.stdout.write(`${name} is ${values.role} on ${service}\n`);
        return;
      }
      case 'revoke': {
        if (!name) throw new Error('revoke needs a user name');
        const service = serviceOf(values.service);
        if (!(await revokeRole(sql, name, service)))
          throw new Error(`${name} has no role of their own on ${service}`);
        process.stdout.write(`${name} has their default role on ${service} again\n`);
        return;
      }
      case 'passwd': {
        if (!name) throw new Error('passwd needs a user name');
        const user = await userRowByLabel(sql, name);
        if (!user) throw new Error(`user ${name} does not exist`);
        await setPassword(sql, user.NAME, await askPassword());
        process.stdout.write(`password of ${user.NAME} changed; their sessions ended\n`);
        // A reset is for a password that may be known to someone else: whatever was made
        // with it ends too, unless kept on purpose, and then said where it cannot be missed.
        if (values['keep-tokens']) {
          const live = (await listTokens(sql, systemClock, user.ID)).tokens.length;
          process.stderr.write(
            `warning: ${live} personal token${live === 1 ? '' : 's'} of ${user.NAME} kept (--keep-tokens): they still act as ${user.NAME}\n`,
          );
        } else {
          const ended = await endTokensOf(sql, systemClock, user.ID, WHY_ENDED.passwordReset);
          process.stdout.write(
            `${ended} personal token${ended === 1 ? '' : 's'} of ${user.NAME} ended\n`,
          );
        }
        return;
      }
      case 'tokens': {
        if (!name) throw new Error('tokens needs a user name');
        const user = await userRowByLabel(sql, name);
        if (!user) throw new Error(`user ${name} does not exist`);
        const { tokens, revoked } = await listTokens(sql, systemClock, user.ID);
        for (const t of tokens)
          process.stdout.write(
            `${t.id}\t${t.name}\t${t.role}\t${t.service ?? '*'}\texpires ${t.expiresAt}\tlast used ${t.lastUsedAt ?? 'never'}\n`,
          );
        for (const t of revoked)
          process.stdout.write(`${t.id}\t${t.name}\trevoked ${t.revokedAt}\t${t.why}\n`);
        return;
      }
      case 'revoke-token': {
        if (!name || !tokenId) throw new Error('revoke-token needs a user name and a token id');
        const user = await userRowByLabel(sql, name);
        if (!user) throw new Error(`user ${name} does not exist`);
        const id = /^\d{1,15}$/.test(tokenId) ? Number(tokenId) : undefined;
        if (
          id === undefined ||
          (await revokeTokenFor(sql, systemClock, id, WHY_ENDED.byCli, user.ID)) === undefined
        )
          throw new Error(`${user.NAME} has no live token ${JSON.stringify(tokenId)}`);
        process.stdout.write(`token ${id} of ${user.NAME} revoked\n`);
        return;
      }
      case 'remove':
        if (!name) throw new Error('remove needs a user name');
        await removeUser(sql, name);
        process.stdout.write(`removed ${name}\n`);
        return;
      default:
        throw new Error(`unknown command ${command}\n\n${USAGE}`);
    }
  } finally {
    await store?.close();
    dbs.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`users: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
