import type { ButtonHTMLAttributes } from 'react';

type Variant = 'primary' | 'secondary' | 'danger' | 'ghost';

const VARIANTS: Record<Variant, string> = {
  primary: 'bg-teal-700 text-white hover:bg-teal-800 dark:bg-teal-600 dark:hover:bg-teal-500',
  secondary:
    'border border-slate-300 bg-white text-slate-800 hover:bg-slate-50 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100 dark:hover:bg-slate-700',
  danger: 'bg-red-700 text-white hover:bg-red-800 dark:bg-red-600 dark:hover:bg-red-500',
  ghost: 'text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800',
};

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  readonly variant?: Variant;
  readonly size?: 'sm' | 'md';
  /** Why the button is disabled; shown on hover and to screen readers. */
  readonly disabledReason?: string | undefined;
}

export function Button({
  variant = 'secondary',
  size = 'md',
  disabledReason,
  className = '',
  disabled,
  title,
  ...rest
}: ButtonProps) {
  const isDisabled = disabled || disabledReason !== undefined;
  return (
    <button
      type="button"
      {...rest}
      disabled={isDisabled}
      title={disabledReason ?? title}
      aria-disabled={isDisabled}
      className={`inline-flex items-center justify-center gap-1.5 rounded-md font-medium whitespace-nowrap transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 disabled:cursor-not-allowed disabled:opacity-50 ${
        size === 'sm' ? 'px-2 py-1 text-xs' : 'px-3 py-1.5 text-sm'
      } ${VARIANTS[variant]} ${className}`}
    />
  );
}
