import { ParseError } from './errors.ts';

// Liberal readers of our server's JSON extensions (Part A): a field missing or of another
// type reads as unknown ('' or undefined), never as a made-up value, and a word a newer
// server adds is not taken for a known one. What cannot be read at all is named in a
// ParseError. The field names come from the answer types, so renaming a field of an answer
// fails the compiler here as well as in the service that writes it.

/** The fields of an answer type, each still to be read. */
export type Unread<T> = { readonly [K in keyof T]?: unknown };

/** An object's fields, or undefined for anything else (null, a list, a text). */
export function fieldsOf<T>(value: unknown): Unread<T> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Unread<T>)
    : undefined;
}

/** The fields of an answer's data, or a ParseError naming the answer. */
export function answerFields<T>(value: unknown, answer: string): Unread<T> {
  const fields = fieldsOf<T>(value);
  if (fields === undefined)
    throw new ParseError(`${answer} answered no object`, JSON.stringify(value) ?? '');
  return fields;
}

/** A list field: absent is none, anything else but a list is named in a ParseError. */
export function listField(value: unknown, name: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value))
    throw new ParseError(`${name} is not a list`, JSON.stringify(value) ?? '');
  return value as unknown[];
}

/** A list field's objects, anything else in it left out. */
export const objectsOf = <T>(value: unknown, name: string): Unread<T>[] =>
  listField(value, name).flatMap((item) => {
    const fields = fieldsOf<T>(item);
    return fields === undefined ? [] : [fields];
  });

/** Text: a string as it is, null or absent as '', a number or boolean as written. */
export const textOf = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : value === null || value === undefined
      ? ''
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value as number | boolean);

/** A finite number, else undefined. */
export const numberOf = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

/** A string, else null. */
export const textOrNull = (value: unknown): string | null =>
  typeof value === 'string' ? value : null;

/** A fact the server learnt, or 'unknown' until it has (a value this kit does not know too). */
export type Learnt<T extends string> = T | 'unknown';

/** One of `values`, else 'unknown': a word a newer server adds is not shown as a known one. */
export const oneOf = <T extends string>(value: unknown, values: readonly T[]): Learnt<T> =>
  values.find((known) => known === value) ?? 'unknown';

/** The strings of a list, or undefined when it is no list. */
export const wordsOf = (value: unknown): string[] | undefined =>
  Array.isArray(value) ? value.filter((w): w is string => typeof w === 'string') : undefined;
