import { readdirSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { upstreamInbox } from '../../gateway/extensions.ts';
import { isPlainFileName } from '../fields.ts';
import type { EmbeddedAnswer, OperationModule } from '../operation.ts';

// inbox: the inbox's files that exec may name (contract section 10, extension).

/**
 * Left out of the list although exec would accept the name: hidden files, and files still
 * being written by whoever drops them (`.partial`, `.part`, `.tmp`, `~` backups), which a
 * run started now would read half of.
 */
function isListed(name: string): boolean {
  return (
    isPlainFileName(name) && !name.startsWith('.') && !/(\.partial|\.part|\.tmp|~)$/i.test(name)
  );
}

/**
 * The inbox's files (contract section 10): the names a plain `filename` of exec may give,
 * each with its size in bytes and its modification time, by name. Read from the folder on
 * every call: files arrive without any database changing, so no cached answer would do.
 */
const embedded: EmbeddedAnswer = (ctx) => {
  let entries: Dirent[];
  try {
    entries = readdirSync(ctx.paths.inbox, { withFileTypes: true });
  } catch (error) {
    // A service without an inbox folder yet has no files in it.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') entries = [];
    else throw error;
  }
  const files: { Name: string; Size: number; Modified: string }[] = [];
  for (const entry of entries) {
    // Only regular files: not a subfolder, and not a link that could lead out of the inbox.
    if (!entry.isFile() || !isListed(entry.name)) continue;
    let stat;
    try {
      stat = statSync(join(ctx.paths.inbox, entry.name));
    } catch {
      continue; // removed between the listing and the look: not there any more.
    }
    files.push({
      Name: entry.name,
      Size: stat.size,
      Modified: ctx.time.stamp(stat.mtime).slice(0, 19),
    });
  }
  files.sort((a, b) => (a.Name < b.Name ? -1 : a.Name > b.Name ? 1 : 0));
  return { root: 'Inbox', body: { File: files } };
};

export const inbox: OperationModule = {
  embedded,
  // Only a service that has an inbox list answers one (gateway/extensions.ts).
  upstream: upstreamInbox,
  openapi: {
    summary:
      'The inbox’s files that exec’s filename may name (no hidden, partial or nested ones), with size in bytes and modification time; a service behind the gateway that has no such list answers 404 (1204)',
    fields: [],
    root: 'Inbox',
  },
  samples: [{ label: 'inbox with two files', phase: 'read' }],
};
