/**
 * Typed pipeline Args (contract section 10): what a definition may declare of an Arg and
 * the one check that both the definition loader (of a default) and exec (of a value sent)
 * apply, so that a value the list advertises as valid is the value exec accepts.
 */

import { fitsArgType, wholeValuePattern, type ArgRules, type ArgType } from '../../kit/index.ts';

export { ARG_TYPES, wholeValuePattern, type ArgRules, type ArgType } from '../../kit/index.ts';

/** How each type is said in a refusal ("Parameter n must be …"). */
const SHAPES: Readonly<Record<ArgType, string>> = {
  string: 'text',
  integer: 'an integer (digits, optional sign)',
  number: 'a number (like 12 or 12.5)',
  boolean: 'true or false',
  date: 'a calendar date as yyyy-mm-dd',
};

/**
 * Why a value breaks an Arg's rules (a phrase following "Parameter <name>"), or undefined
 * when it fits. An empty value is a missing one: refused only when the Arg is required.
 *
 * @example
 * argProblem({ type: 'integer' }, 'abc') // 'must be an integer (digits, optional sign)'
 */
export function argProblem(rules: ArgRules, value: string): string | undefined {
  if (value === '') return rules.required ? 'is required and has no default' : undefined;
  if (rules.type && !fitsArgType(rules.type, value)) return `must be ${SHAPES[rules.type]}`;
  if (rules.choices && rules.choices.length > 0 && !rules.choices.includes(value)) {
    return `must be one of ${rules.choices.join(', ')}`;
  }
  if (rules.pattern !== undefined && !wholeValuePattern(rules.pattern).test(value)) {
    return `must match the pattern ${rules.pattern}`;
  }
  return undefined;
}
