import { PAGE_SIZES } from '../shared/url-state.ts';
import { Field, Options, UrlSelect } from './fields.tsx';

/** The page-size choice every paged view offers, from the one list of sizes, in the URL. */
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
      <UrlSelect value={value} onPick={(size) => onChange(Number(size))}>
        <Options values={PAGE_SIZES} />
      </UrlSelect>
    </Field>
  );
}
