import { notText } from '../db/text.ts';
import { ApiError } from '../errors.ts';

/**
 * One form field of Part A or B, refusing repeats; `missing` is the Part's error code. Each
 * of these fields is one line (a name, a password, a session id, a filter, a flag): any
 * control character, tab and line feed included, or a lone surrogate, is refused naming the
 * field before it reaches a store (db/text.ts), and so are bytes that were not UTF-8.
 */
export function field(
  source: unknown,
  name: string,
  codes: { status: number; missing: number },
  required: true,
): string;
export function field(
  source: unknown,
  name: string,
  codes: { status: number; missing: number },
  required: false,
): string | undefined;
export function field(
  source: unknown,
  name: string,
  codes: { status: number; missing: number },
  required: boolean,
): string | undefined {
  const value =
    source && typeof source === 'object' ? (source as Record<string, unknown>)[name] : undefined;
  if (Array.isArray(value))
    throw new ApiError(400, codes.missing, `Parameter ${name} is given more than once.`);
  if (value === undefined || value === '') {
    if (required) throw new ApiError(codes.status, codes.missing, `Parameter ${name} is required.`);
    return undefined;
  }
  if (typeof value !== 'string')
    throw new ApiError(400, codes.missing, `Parameter ${name} must be text.`);
  if (value.length > 1024)
    throw new ApiError(400, codes.missing, `Parameter ${name} is longer than 1024 characters.`);
  // The form parser turns bytes that are not UTF-8 into U+FFFD (form.ts).
  if (value.includes('\uFFFD'))
    throw new ApiError(400, codes.missing, `Parameter ${name} is not valid UTF-8.`);
  const why = notText(value);
  if (why !== undefined) throw new ApiError(400, codes.missing, `Parameter ${name} ${why}.`);
  return value;
}

/** Whole minutes from 1 to 1440, or the default; anything else is the Part's type error. */
export function minutes(value: string | undefined, name: string, code: number): number {
  if (value === undefined) return 30;
  if (!/^\d{1,4}$/.test(value) || Number(value) < 1 || Number(value) > 1440) {
    throw new ApiError(400, code, `Parameter ${name} must be whole minutes from 1 to 1440.`);
  }
  return Number(value);
}

/** Body fields win over query fields of the same name. */
export function merged(query: unknown, body: unknown): Record<string, unknown> {
  return {
    ...(query && typeof query === 'object' ? (query as Record<string, unknown>) : {}),
    ...(body && typeof body === 'object' ? (body as Record<string, unknown>) : {}),
  };
}
