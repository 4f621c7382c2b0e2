import { PAGE_SIZES } from '../shared/url-state.ts';
import { Field, Options, Select } from './fields.tsx';

/** The page-size choice every paged view offers, from the one list of sizes. */
export function PageSizeField({
  label,
  value,
  onChange,
}: {
  label: string;
  value: number;
  onChange: (size: number) => void;
}) {
  return (
    <Field label={label}>
      <Select value={value} onChange={(e) => onChange(Number(e.target.value))}>
        <Options values={PAGE_SIZES} />
      </Select>
    </Field>
  );
}
