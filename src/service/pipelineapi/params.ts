import { notText } from '../db/text.ts';
import { badParameter, missingParameter } from '../errors.ts';

type RawValue = string | string[] | undefined;

/**
 * The parameters of one call: query fields merged with body fields, a body field winning
 * over a query field of the same name. Every accessor validates and names the parameter
 * in its error.
 */
export class Params {
  private readonly values: Map<string, RawValue>;

  constructor(query: unknown, body: unknown) {
    this.values = new Map();
    for (const source of [query, body]) {
      if (source && typeof source === 'object') {
        for (const [name, value] of Object.entries(source as Record<string, unknown>)) {
          if (typeof value === 'string') this.values.set(name, value);
          else if (Array.isArray(value)) this.values.set(name, value.map(String));
        }
      }
    }
  }

  /** Names of every parameter given (a gateway passes a pipeline's Args on by name). */
  names(): string[] {
    return [...this.values.keys()];
  }

  /**
   * The value of a parameter given at most once; undefined when absent or empty. Text only
   * (db/text.ts): a control character or a lone surrogate is refused naming the parameter,
   * before the value reaches a store. Tab, line feed and carriage return pass: Part C's and
   * the bulk jobs' free text (a reason, a search, a pipeline's Args) may span lines, and
   * every id, name or flag is held to its shape by `matching` or its caller besides.
   */
  optional(name: string, maxLength = 1024): string | undefined {
    const value = this.values.get(name);
    if (Array.isArray(value)) throw badParameter(name, 'is given more than once');
    if (value === undefined || value === '') return undefined;
    if (value.length > maxLength)
      throw badParameter(name, `is longer than ${maxLength} characters`);
    // The form parser turns bytes that are not UTF-8 into U+FFFD; such a value is not what was meant.
    if (value.includes('\uFFFD')) throw badParameter(name, 'is not valid UTF-8');
    const why = notText(value, { multiLine: true });
    if (why !== undefined) throw badParameter(name, why);
    return value;
  }

  required(name: string, maxLength = 1024): string {
    const value = this.optional(name, maxLength);
    if (value === undefined) throw missingParameter(name);
    return value;
  }

  /** A value that must match `pattern`; `shape` says in words what it should look like. */
  matching(name: string, pattern: RegExp, shape: string, required: true): string;
  matching(name: string, pattern: RegExp, shape: string, required: false): string | undefined;
  matching(name: string, pattern: RegExp, shape: string, required: boolean): string | undefined {
    const value = required ? this.required(name) : this.optional(name);
    if (value !== undefined && !pattern.test(value))
      throw badParameter(name, `must have the shape ${shape}`);
    return value;
  }

  boolean(name: string, fallback: boolean): boolean {
    const value = this.optional(name);
    if (value === undefined) return fallback;
    if (value === 'true') return true;
    if (value === 'false') return false;
    throw badParameter(name, 'must be true or false');
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const value = this.optional(name);
    if (value === undefined) return fallback;
    if (!/^\d{1,10}$/.test(value))
      throw badParameter(name, `must be a whole number from ${min} to ${max}`);
    const number = Number(value);
    if (number < min || number > max)
      throw badParameter(name, `must be a whole number from ${min} to ${max}`);
    return number;
  }
}
