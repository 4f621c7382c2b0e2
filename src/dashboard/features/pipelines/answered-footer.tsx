import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../components/button.tsx';

/**
 * The buttons of a pipeline's dialog: Cancel beside its action until the service has
 * answered, then Close alone, focused, under the answer.
 */
export function AnsweredFooter({
  answered,
  onClose,
  children,
}: {
  answered: boolean;
  onClose: () => void;
  /** The dialog's action. */
  children: ReactNode;
}) {
  const { t } = useTranslation('pipelines');
  return answered ? (
    <Button onClick={onClose} autoFocus>
      {t('close')}
    </Button>
  ) : (
    <>
      <Button onClick={onClose}>{t('cancel')}</Button>
      {children}
    </>
  );
}
