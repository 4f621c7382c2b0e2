import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../components/button.tsx';
import { Dialog } from '../../components/dialog.tsx';

/**
 * A pipeline's dialog (run it, clear its cache): Cancel beside its action until the service
 * has answered, then Close alone, focused, under the answer.
 */
export function AnsweredDialog({
  title,
  answered,
  onClose,
  action,
  children,
}: {
  title: string;
  answered: boolean;
  onClose: () => void;
  /** The dialog's action, shown until the service has answered. */
  action: ReactNode;
  children: ReactNode;
}) {
  const { t } = useTranslation('pipelines');
  const footer = answered ? (
    <Button onClick={onClose} autoFocus>
      {t('close')}
    </Button>
  ) : (
    <>
      <Button onClick={onClose}>{t('cancel')}</Button>
      {action}
    </>
  );
  return (
    <Dialog open title={title} onClose={onClose} footer={footer}>
      {children}
    </Dialog>
  );
}
