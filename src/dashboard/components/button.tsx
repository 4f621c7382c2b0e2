import { useId, type ButtonHTMLAttributes } from 'react';
import { notify } from '../core/notices.ts';
import { reasonOnFocus } from './focus-reason.tsx';

type Variant = 'primary' | 'secondary' | 'danger' | 'ghost';

// White on teal-700 and red-700 stays above 4.5:1 in both themes (teal-600 was 3.7:1).
const VARIANTS: Record<Variant, string> = {
  primary: 'bg-teal-700 text-white hover:bg-teal-800',
  secondary:
    'border border-slate-300 bg-white text-slate-800 hover:bg-slate-50 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100 dark:hover:bg-slate-700',
  danger: 'bg-red-700 text-white hover:bg-red-800',
  ghost: 'text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800',
};

// A disabled button drops its variant's colour: a faded red or teal still read as active
// on a dark page.
const DISABLED =
  'cursor-not-allowed border border-dashed border-slate-300 bg-slate-100 text-slate-600 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-400';

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  readonly variant?: Variant;
  readonly size?: 'sm' | 'md';
  /**
   * Why the button is disabled. The button then stays focusable (aria-disabled), describes
   * itself with the reason, shows it beside itself while the keyboard's focus is on it, and
   * as a notice when pressed or tapped: a title alone never reaches keyboard or touch users.
   */
  readonly disabledReason?: string | undefined;
}

export function Button({
  variant = 'secondary',
  size = 'md',
  disabledReason,
  className = '',
  disabled,
  title,
  onClick,
  ...rest
}: ButtonProps) {
  const reasonId = useId();
  const explained = disabledReason !== undefined;
  const isDisabled = disabled || explained;
  return (
    <>
      <button
        type="button"
        {...rest}
        disabled={disabled && !explained}
        title={disabledReason ?? title}
        aria-disabled={isDisabled}
        aria-describedby={explained ? reasonId : rest['aria-describedby']}
        {...(explained ? reasonOnFocus(disabledReason) : {})}
        onClick={(event) => {
          if (explained) notify({ kind: 'info', text: disabledReason });
          else onClick?.(event);
        }}
        className={`inline-flex items-center justify-center gap-1.5 rounded-md font-medium whitespace-nowrap transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 ${
          size === 'sm' ? 'px-2 py-1 text-xs' : 'px-3 py-1.5 text-sm'
        } ${isDisabled ? DISABLED : VARIANTS[variant]} ${className}`}
      />
      {explained ? (
        <span id={reasonId} className="sr-only">
          {disabledReason}
        </span>
      ) : null}
    </>
  );
}
