// What every reader shares: its error, and the bounds on one record and one field.

export class InputError extends Error {
  override readonly name = 'InputError';
}

/** The longest record (a CSV row or a JSON line, without its line end) a read accepts. */
export const DEFAULT_MAX_RECORD_CHARS = 1_048_576;
/** The longest CSV field, as written (quotes included); by default the record limit. */
export const DEFAULT_MAX_FIELD_CHARS = DEFAULT_MAX_RECORD_CHARS;

export interface ReadLimits {
  readonly maxRecordChars?: number;
  readonly maxFieldChars?: number;
}

export interface ReadOptions extends ReadLimits {
  /** Checked before each chunk; once aborted, the read throws `signal.reason` as it is. */
  readonly signal?: AbortSignal;
}

export interface Limits {
  readonly maxRecordChars: number;
  readonly maxFieldChars: number;
}

export function limitsOf(options: ReadLimits): Limits {
  const maxRecordChars = options.maxRecordChars ?? DEFAULT_MAX_RECORD_CHARS;
  const maxFieldChars = options.maxFieldChars ?? maxRecordChars;
  for (const [name, value] of Object.entries({ maxRecordChars, maxFieldChars })) {
    if (!Number.isSafeInteger(value) || value < 1)
      throw new RangeError(`${name} must be a positive integer, not ${value}`);
  }
  return { maxRecordChars, maxFieldChars };
}

export const characters = (n: number): string => `${n.toLocaleString('en')} characters`;
