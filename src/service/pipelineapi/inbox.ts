import { readdirSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import type { ServiceContext } from '../context.ts';
import type { Document } from '../render/document.ts';

/** A plain file name inside the inbox: no separators, no `..`, no control characters. */
// eslint-disable-next-line no-control-regex
export const PLAIN_FILE_NAME = /^(?!.*\.\.)[^/\\\u0000-\u001f\u007f]{1,255}$/;

/** Whether exec's `filename` may name this file: the rule exec applies, and no blank name. */
export function isPlainFileName(name: string): boolean {
  return PLAIN_FILE_NAME.test(name) && name !== '.' && name.trim() !== '';
}

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
export function inbox(ctx: ServiceContext): Document {
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
}
