/**
 * The types a pipeline Arg may declare (contract section 10) and what fits each: one
 * definition that the service's exec and definition loader and the dashboard's execute
 * dialog all check against, so that the browser never refuses what the service accepts.
 */

export const ARG_TYPES = ['string', 'integer', 'number', 'boolean', 'date'] as const;
export type ArgType = (typeof ARG_TYPES)[number];

/** What a pipeline definition may declare of an Arg (contract section 10). */
export interface ArgRules {
  readonly type?: ArgType;
  readonly required?: boolean;
  /** A regular expression the whole value must match. */
  readonly pattern?: string;
  readonly choices?: readonly string[];
}

const INTEGER = /^[+-]?\d{1,15}$/;
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function isDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

const FITS: Readonly<Record<ArgType, (value: string) => boolean>> = {
  string: () => true,
  integer: (v) => INTEGER.test(v),
  number: (v) => NUMBER.test(v),
  boolean: (v) => v === 'true' || v === 'false',
  date: isDate,
};

export const isArgType = (type: string): type is ArgType =>
  (ARG_TYPES as readonly string[]).includes(type);

/**
 * Whether a (non-empty) value fits an Arg's declared type; a type this kit does not know
 * (a newer service's) is left to the service.
 * @example fitsArgType('integer', '12') // true
 */
export function fitsArgType(type: string, value: string): boolean {
  return isArgType(type) ? FITS[type](value) : true;
}

/** An Arg's pattern as a whole-value expression; throws on one that does not compile. */
export function wholeValuePattern(pattern: string): RegExp {
  return new RegExp(`^(?:${pattern})$`, 'u');
}
