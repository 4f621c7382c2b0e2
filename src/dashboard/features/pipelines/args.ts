import { fitsArgType, wholeValuePattern, type PipelineArg } from '../../../kit/index.ts';

/**
 * The Arg rules a pipeline's list declares (contract section 10), checked in the browser so
 * that a bad value is refused, naming its Arg, before any request exists. The service checks
 * the same rules again (src/service/pipelines/arg-rules.ts), with the same type checks
 * from the kit (arg-types.ts), so this never refuses what it would accept.
 */
export type ArgProblem =
  | { readonly kind: 'required' }
  | { readonly kind: 'integer' | 'number' | 'boolean' | 'date' }
  | { readonly kind: 'choices'; readonly choices: string }
  | { readonly kind: 'pattern'; readonly pattern: string };

/** A whole-value pattern, or undefined when this browser cannot compile it (the service decides). */
function wholeValue(pattern: string): RegExp | undefined {
  try {
    return wholeValuePattern(pattern);
  } catch {
    return undefined;
  }
}

/**
 * What the service would run with: the value typed, or the Arg's default when left empty
 * (exec leaves out an empty Arg, and the service then takes the default).
 */
export const effectiveValue = (arg: PipelineArg, typed: string): string =>
  typed.trim() === '' ? arg.value : typed.trim();

/** Why `typed` breaks the Arg's declared rules, or undefined when it fits. */
export function argProblem(arg: PipelineArg, typed: string): ArgProblem | undefined {
  const value = effectiveValue(arg, typed);
  if (value === '') return arg.required ? { kind: 'required' } : undefined;
  if (arg.type !== undefined && !fitsArgType(arg.type, value))
    return { kind: arg.type as 'integer' };
  if (arg.choices && arg.choices.length > 0 && !arg.choices.includes(value))
    return { kind: 'choices', choices: arg.choices.join(', ') };
  if (arg.pattern !== undefined && wholeValue(arg.pattern)?.test(value) === false)
    return { kind: 'pattern', pattern: arg.pattern };
  return undefined;
}

/** The Args to send: only those the user typed, so the service applies its own defaults. */
export function argsToSend(
  args: readonly PipelineArg[],
  typed: Readonly<Record<string, string>>,
): Record<string, string> {
  return Object.fromEntries(
    args.flatMap((arg) => {
      const value = (typed[arg.name] ?? '').trim();
      return value === '' ? [] : [[arg.name, value]];
    }),
  );
}
