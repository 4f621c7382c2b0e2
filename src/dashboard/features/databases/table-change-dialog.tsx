import { useState } from 'react';
import { Button } from '../../components/button.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { Field, TextInput } from '../../components/fields.tsx';
import { useTableChange } from './queries.ts';
import { strings } from './strings.ts';

/** Delete or drop an action table, once its name has been typed. */
export function TableChangeDialog({
  table,
  rows,
  drop,
  onClose,
}: {
  table: string;
  rows: number | undefined;
  drop: boolean;
  onClose: (changed: boolean) => void;
}) {
  const change = useTableChange();
  const [typed, setTyped] = useState('');
  const result = change.data?.rowCount;
  return (
    <Dialog
      open
      title={drop ? strings.confirm.dropTitle(table) : strings.confirm.deleteTitle(table)}
      onClose={() => onClose(change.isSuccess)}
      footer={
        change.isSuccess ? (
          <Button onClick={() => onClose(true)}>{strings.confirm.close}</Button>
        ) : (
          <>
            <Button onClick={() => onClose(false)}>{strings.confirm.keep}</Button>
            <Button
              variant="danger"
              disabled={typed !== table || change.isPending}
              onClick={() => change.mutate({ table, drop })}
            >
              {strings.confirm.go(drop)}
            </Button>
          </>
        )
      }
    >
      {change.isSuccess ? (
        <p role="status" data-testid="row-count-result">
          {strings.confirm.result(result ?? 0, drop)}
        </p>
      ) : (
        <div className="flex flex-col gap-3">
          <p>
            {strings.confirm.count(rows)} {strings.confirm.irreversible}
          </p>
          <Field label={strings.confirm.typeName(table)}>
            <TextInput
              name="confirm-table"
              autoComplete="off"
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
              autoFocus
            />
          </Field>
          {change.error ? <ErrorView error={change.error} /> : null}
        </div>
      )}
    </Dialog>
  );
}
