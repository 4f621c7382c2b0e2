import type { Capabilities } from '../../../kit/index.ts';

/**
 * How an upstream's request lists page, in one word: a whole day in one answer (pagesize
 * ignored), pages of at most its cap, pages of the size asked, or not known yet.
 */
export type PagingKind = 'whole' | 'capped' | 'asked' | 'unknown';

export function pagingKind(c: Pick<Capabilities, 'pagesize' | 'cap'>): PagingKind {
  if (c.pagesize === 'ignored') return 'whole';
  if (c.cap !== undefined) return 'capped';
  return c.pagesize === 'honoured' ? 'asked' : 'unknown';
}

/** The names charsets are declared by (IANA's spelling), for the decoders' lower-case ones. */
const CHARSET_NAMES: Readonly<Record<string, string>> = {
  'utf-8': 'UTF-8',
  'utf-16be': 'UTF-16BE',
  'utf-16le': 'UTF-16LE',
  shift_jis: 'Shift_JIS',
  'euc-jp': 'EUC-JP',
  'iso-2022-jp': 'ISO-2022-JP',
  'windows-1252': 'windows-1252',
};

/** A charset as people write it: `shift_jis` → `Shift_JIS`; one not listed in capitals. */
export function charsetName(charset: string): string {
  return CHARSET_NAMES[charset.toLowerCase()] ?? charset.toUpperCase();
}

/** A size in the largest unit it fills, and whether that value is exact. */
export interface ByteSize {
  readonly unit: 'bytes' | 'KB' | 'MB' | 'GB';
  readonly value: number;
  /** False when the value is rounded (to one decimal). */
  readonly exact: boolean;
}

const UNITS = ['KB', 'MB', 'GB'] as const;

/** Bytes in KB, MB or GB of 1,024 each, to one decimal, saying whether that rounded. */
export function byteSize(bytes: number): ByteSize {
  let unit: ByteSize['unit'] = 'bytes';
  let size = bytes;
  for (const next of UNITS) {
    if (size < 1024) break;
    size /= 1024;
    unit = next;
  }
  const value = Math.round(size * 10) / 10;
  return { unit, value, exact: value === size };
}

/** Seconds to one decimal, saying whether that rounded (the poller's wait is in ms). */
export function roundedSeconds(seconds: number): { value: number; exact: boolean } {
  const value = Math.round(seconds * 10) / 10;
  return { value, exact: value === seconds };
}
