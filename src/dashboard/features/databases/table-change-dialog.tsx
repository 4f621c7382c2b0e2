import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../components/button.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { Field, TextInput } from '../../components/fields.tsx';
import { useTableChange, type RowCount } from './queries.ts';

/** Delete or drop an action table, once its name has been typed. */
export function TableChangeDialog({
  table,
  rows,
  drop,
  onClose,
}: {
  table: string;
  rows: RowCount | undefined;
  drop: boolean;
  onClose: (changed: boolean) => void;
}) {
  const { t } = useTranslation('databases');
  const change = useTableChange();
  const [typed, setTyped] = useState('');
  const result = change.data?.rowCount;
  return (
    <Dialog
      open
      title={drop ? t('confirm.dropTitle', { table }) : t('confirm.deleteTitle', { table })}
      onClose={() => onClose(change.isSuccess)}
      footer={
        change.isSuccess ? (
          <Button onClick={() => onClose(true)}>{t('confirm.close')}</Button>
        ) : (
          <>
            <Button onClick={() => onClose(false)}>{t('confirm.keep')}</Button>
            <Button
              variant="danger"
              disabled={typed !== table || change.isPending}
              onClick={() => change.mutate({ table, drop })}
            >
              {drop ? t('confirm.drop') : t('confirm.delete')}
            </Button>
          </>
        )
      }
    >
      {change.isSuccess ? (
        <p role="status" data-testid="row-count-result">
          {drop
            ? t('confirm.dropped', { count: result ?? 0 })
            : t('confirm.deleted', { count: result ?? 0 })}
        </p>
      ) : (
        <div className="flex flex-col gap-3">
          <p>
            {rows === undefined
              ? t('confirm.countUnknown')
              : rows.atLeast
                ? t('confirm.countAtLeast', { count: rows.count })
                : t('confirm.count', { count: rows.count })}{' '}
            {t('confirm.irreversible')}
          </p>
          <Field label={t('confirm.typeName', { table })}>
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
