/**
 * Typed pipeline Args (contract section 10): what a definition may declare of an Arg and
 * the one check that both the definition loader (of a default) and exec (of a value sent)
 * apply, so that a value the list advertises as valid is the value exec accepts.
 */

export const ARG_TYPES = ['string', 'integer', 'number', 'boolean', 'date'] as const;
export type ArgType = (typeof ARG_TYPES)[number];

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

const TYPE_CHECKS: Readonly<Record<ArgType, { test: (v: string) => boolean; shape: string }>> = {
  string: { test: () => true, shape: 'text' },
  integer: { test: (v) => INTEGER.test(v), shape: 'an integer (digits, optional sign)' },
  number: { test: (v) => NUMBER.test(v), shape: 'a number (like 12 or 12.5)' },
  boolean: { test: (v) => v === 'true' || v === 'false', shape: 'true or false' },
  date: { test: isDate, shape: 'a calendar date as yyyy-mm-dd' },
};

/** The pattern as a whole-value expression; throws on one that does not compile. */
export function wholeValuePattern(pattern: string): RegExp {
  return new RegExp(`^(?:${pattern})$`, 'u');
}

/**
 * Why a value breaks an Arg's rules (a phrase following "Parameter <name>"), or undefined
 * when it fits. An empty value is a missing one: refused only when the Arg is required.
 *
 * @example
 * argProblem({ type: 'integer' }, 'abc') // 'must be an integer (digits, optional sign)'
 */
export function argProblem(rules: ArgRules, value: string): string | undefined {
  if (value === '') return rules.required ? 'is required and has no default' : undefined;
  if (rules.type && !TYPE_CHECKS[rules.type].test(value)) {
    return `must be ${TYPE_CHECKS[rules.type].shape}`;
  }
  if (rules.choices && rules.choices.length > 0 && !rules.choices.includes(value)) {
    return `must be one of ${rules.choices.join(', ')}`;
  }
  if (rules.pattern !== undefined && !wholeValuePattern(rules.pattern).test(value)) {
    return `must match the pattern ${rules.pattern}`;
  }
  return undefined;
}
