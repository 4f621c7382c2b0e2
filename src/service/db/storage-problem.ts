/** What kept the service from writing its data folder, read from an error's code. */
export interface StorageProblem {
  /** `full`: no space left; `busy`: another writer holds the database; `unwritable`: the rest. */
  readonly kind: 'full' | 'busy' | 'unwritable';
  readonly code: string;
}

/** The storage problem behind an error (SQLite's or the file system's), or undefined. */
export function storageProblemOf(error: unknown): StorageProblem | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT')
    return { kind: 'full', code };
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return { kind: 'busy', code };
  if (code === 'SQLITE_READONLY' || code === 'EROFS' || code.startsWith('SQLITE_IOERR'))
    return { kind: 'unwritable', code };
  return undefined;
}
