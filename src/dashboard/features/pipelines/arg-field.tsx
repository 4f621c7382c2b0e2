import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import type { PipelineArg } from '../../../kit/index.ts';
import { Options, Select, TextInput, type ControlProps } from '../../components/fields.tsx';

const TYPES = ['string', 'integer', 'number', 'boolean', 'date'] as const;
type KnownType = (typeof TYPES)[number];
const knownType = (type: string | undefined): KnownType | undefined =>
  TYPES.find((known) => known === type);

/** One Arg's control, shaped by what its definition declares (contract section 10). */
export function ArgField({ arg, value, onChange, problem }: ControlProps & { arg: PipelineArg }) {
  const { t } = useTranslation('pipelines');
  const id = useId();
  const hintId = useId();
  const problemId = useId();
  const type = knownType(arg.type);
  const hint = [
    type === undefined ? undefined : t(`exec.argHint.type.${type}`),
    arg.required ? t('exec.argHint.required') : undefined,
    arg.value === '' ? undefined : t('exec.argHint.default', { value: arg.value }),
    arg.pattern === undefined ? undefined : t('exec.argHint.pattern', { pattern: arg.pattern }),
  ]
    .filter((part) => part !== undefined)
    .join(' · ');
  const common = {
    id,
    name: `arg-${arg.name}`,
    value,
    'aria-invalid': problem !== undefined,
    'aria-describedby': [hint ? hintId : undefined, problem === undefined ? undefined : problemId]
      .filter(Boolean)
      .join(' '),
  };
  const options =
    arg.choices && arg.choices.length > 0
      ? arg.choices
      : type === 'boolean'
        ? ['true', 'false']
        : undefined;
  // An empty choice only where it means something: no default to fall back to, not required.
  const unset = arg.value === '' && !arg.required;
  return (
    <div className="flex flex-col gap-1 text-sm">
      <label htmlFor={id} className="font-mono font-medium text-slate-700 dark:text-slate-200">
        {arg.name}
      </label>
      {options ? (
        <Select {...common} onChange={(e) => onChange(e.target.value)}>
          {unset || value === '' ? <option value="">{t('exec.unset')}</option> : null}
          <Options
            values={[...(value === '' || options.includes(value) ? [] : [value]), ...options]}
          />
        </Select>
      ) : (
        <TextInput
          {...common}
          type={type === 'date' ? 'date' : 'text'}
          inputMode={type === 'integer' ? 'numeric' : type === 'number' ? 'decimal' : undefined}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
      {hint ? (
        <span id={hintId} className="text-xs text-slate-600 dark:text-slate-400">
          {hint}
        </span>
      ) : null}
      {problem === undefined ? null : (
        <span id={problemId} className="text-xs text-red-700 dark:text-red-300">
          {problem}
        </span>
      )}
    </div>
  );
}
