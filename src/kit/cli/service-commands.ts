import { DATABASE_NAMES, type DatabaseName } from '../index.ts';
import { changeOne, type Command } from './command-run.ts';
import { table } from './output.ts';
import { UsageError } from './usage.ts';

// pipelinectl's commands on the service itself: pipelines' run modes and caches, its
// inbox and version, its databases and action tables.

export const SERVICE_COMMANDS: Readonly<Record<string, Command>> = {
  resume: changeOne('resume', 'a pipeline id'),
  suspend: changeOne('suspend', 'a pipeline id'),
  inbox: async ({ client, wire, out }) => {
    const files = await client.inbox(wire);
    out(files, () =>
      table(
        files.map((f) => ({ Name: f.name, Size: f.size, Modified: f.modified })),
        ['Name', 'Size', 'Modified'],
      ),
    );
    return 0;
  },
  version: async ({ client, wire, out }) => {
    const version = await client.version(wire);
    out({ version }, () => `${version}\n`);
    return 0;
  },
  db: async ({ client, target, extra, wire, page, out, need }) => {
    const names = `${DATABASE_NAMES.slice(0, -1).join(', ')} or ${DATABASE_NAMES.at(-1)}`;
    const database = need(target, names) as DatabaseName;
    if (!(DATABASE_NAMES as readonly string[]).includes(database))
      throw new UsageError(`db takes ${names}`);
    if (extra === undefined) {
      const list = await client.tables(database, page, wire);
      out(list, () => table(list.tables.map((t) => ({ Table: t }))));
    } else {
      const contents = await client.table(database, extra, page, wire);
      out(contents, () => {
        const names = contents.columns.map((c) => c.name);
        const rows = contents.rows.map((r) =>
          Object.fromEntries(names.map((n, i) => [n, r[i] ?? null])),
        );
        return `${extra}: rows ${contents.info.index + 1}-${contents.info.index + contents.info.count} of ${contents.info.total ?? '?'}\n${table(rows, names)}`;
      });
    }
    return 0;
  },
  'clear-cache': async ({ client, target, values, wire, done, need }) => {
    done(
      await client.clearCache(
        need(target, 'a pipeline id'),
        { sensor: values.sensor, filter: values.filter, joint: values.joint },
        wire,
      ),
    );
    return 0;
  },
  'delete-table': async ({ client, target, wire, done, need }) => {
    done(await client.deleteTable(need(target, 'a table name'), wire));
    return 0;
  },
  'drop-table': async ({ client, target, wire, done, need }) => {
    done(await client.dropTable(need(target, 'a table name'), wire));
    return 0;
  },
};
