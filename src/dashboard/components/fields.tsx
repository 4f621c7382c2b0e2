import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes } from 'react';
import { isoToYmd, ymdToIso } from '../paths.ts';
import { useUrlDraft } from '../shared/url-draft.ts';

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

/**
 * A select whose value lives in the URL. It shows each pick at once, whenever `value` comes
 * to follow it: else a phone's arrow keys, each put back until the URL renders, would move
 * no further than one option.
 */
export function UrlSelect({
  value,
  onPick,
  ...select
}: { value: string | number; onPick: (value: string) => void } & Omit<
  SelectHTMLAttributes<HTMLSelectElement>,
  'value' | 'onChange'
>) {
  const [shown, type] = useUrlDraft(String(value));
  return (
    <Select
      {...select}
      value={shown}
      onChange={(e) => {
        type(e.target.value);
        onPick(e.target.value);
      }}
    />
  );
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

/** An input's attributes but its value, its kind and its change, which the control owns. */
type InputRest = Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange' | 'type'>;

/**
 * A labelled search box: the label above it, or beside it where a header has the room. It
 * shows each key at once, whenever `value` (the URL's, on every page) comes to follow it.
 */
export function SearchField({
  label,
  beside = false,
  value,
  onText,
  ...input
}: { label: string; beside?: boolean; value: string; onText: (text: string) => void } & InputRest) {
  const [shown, type] = useUrlDraft(value);
  return (
    <label className={`flex ${beside ? 'items-center gap-2' : 'flex-col gap-1'} text-sm`}>
      <span className="font-medium">{label}</span>
      <TextInput
        type="search"
        {...input}
        value={shown}
        onChange={(e) => {
          type(e.target.value);
          onText(e.target.value);
        }}
      />
    </label>
  );
}

/**
 * A date input of a day (yyyymmdd) that shows each pick at once, whenever `day` (the URL's)
 * comes to follow it. A date emptied, or typed only in part, reads as no day: `onDay`
 * hears of it only where no day is a choice (`clearable`).
 */
export function DayInput({
  day,
  onDay,
  clearable = false,
  ...input
}: {
  day: string | undefined;
  onDay: (day: string | undefined) => void;
  clearable?: boolean;
} & InputRest) {
  const [shown, type] = useUrlDraft(day ? ymdToIso(day) : '');
  return (
    <TextInput
      type="date"
      {...input}
      value={shown}
      onChange={(e) => {
        const iso = e.target.value;
        if (!iso && !clearable) return;
        type(iso);
        onDay(iso ? isoToYmd(iso) : undefined);
      }}
    />
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
