import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes } from 'react';

const CONTROL =
  'rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm text-slate-900 shadow-xs focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-teal-600 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100';

/** A form control's value, what a change makes of it, and why it is refused (shown under it). */
export interface ControlProps {
  readonly value: string;
  readonly onChange: (value: string) => void;
  readonly problem: string | undefined;
}

export function TextInput(props: InputHTMLAttributes<HTMLInputElement>) {
  return <input {...props} className={`${CONTROL} ${props.className ?? ''}`} />;
}

export function Select(props: SelectHTMLAttributes<HTMLSelectElement>) {
  return <select {...props} className={`${CONTROL} ${props.className ?? ''}`} />;
}

/** A select's options, each value shown as `label` words it (as it is, unless told). */
export function Options<T extends string | number>({
  values,
  label = (value) => String(value),
}: {
  values: readonly T[];
  label?: (value: T) => string;
}) {
  return values.map((value) => (
    <option key={value} value={value}>
      {label(value)}
    </option>
  ));
}

/** A labelled search box: the label above it, or beside it where a header has the room. */
export function SearchField({
  label,
  beside = false,
  ...input
}: { label: string; beside?: boolean } & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <label className={`flex ${beside ? 'items-center gap-2' : 'flex-col gap-1'} text-sm`}>
      <span className="font-medium">{label}</span>
      <TextInput type="search" {...input} />
    </label>
  );
}

export function Field({
  label,
  children,
  hint,
}: {
  label: string;
  children: ReactNode;
  hint?: string;
}) {
  return (
    <label className="flex flex-col gap-1 text-sm">
      <span className="font-medium text-slate-700 dark:text-slate-200">{label}</span>
      {children}
      {hint ? <span className="text-xs text-slate-500 dark:text-slate-400">{hint}</span> : null}
    </label>
  );
}

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="mb-4 flex flex-wrap items-end justify-between gap-3">
      <h1 className="text-xl font-semibold text-slate-900 dark:text-slate-50">{title}</h1>
      {children ? <div className="flex flex-wrap items-end gap-2">{children}</div> : null}
    </div>
  );
}
