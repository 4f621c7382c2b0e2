import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Pipeline } from '../../../kit/index.ts';
import { Button } from '../../components/button.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { serviceTitle } from '../../shared/environment.ts';
import { useSetRunmode } from '../../shared/queries.ts';
import { useServiceDown } from '../../shared/service-down.ts';
import { useCurrentService } from '../../shared/services.ts';

/** The longest reason the server takes: what its audit entry keeps of a value. */
const REASON_MAX = 256;

/**
 * Suspending a pipeline of a production service, confirmed: the dialog names the pipeline
 * and the service, and asks why; the reason goes with the call into the server's audit log
 * (and no further: a vendor's service is never sent it). Closes once the service has taken
 * the suspend; a refusal stays in the dialog, as the page's notice says too.
 */
export function SuspendDialog({ pipeline, onClose }: { pipeline: Pipeline; onClose: () => void }) {
  const { t } = useTranslation('pipelines');
  const suspend = useSetRunmode();
  const down = useServiceDown();
  const service = useCurrentService();
  const [reason, setReason] = useState('');
  const hintId = useId();
  const given = reason.trim();
  return (
    <Dialog
      open
      title={t('suspend.title', {
        name: pipeline.name,
        id: pipeline.id,
        service: serviceTitle(service),
      })}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose}>{t('suspend.keep')}</Button>
          <Button
            variant="danger"
            disabled={suspend.isPending}
            // A service that went down while the dialog was open refuses before it is asked.
            disabledReason={down?.reason ?? (given === '' ? t('suspend.needReason') : undefined)}
            onClick={() =>
              suspend.mutate({ id: pipeline.id, run: false, reason: given }, { onSuccess: onClose })
            }
          >
            {suspend.isPending ? t('suspend.going') : t('suspend.go')}
          </Button>
        </>
      }
    >
      <p className="mb-3 text-slate-600 dark:text-slate-300">{t('suspend.text')}</p>
      <label className="flex flex-col gap-1">
        <span className="font-medium">{t('suspend.reason')}</span>
        <textarea
          value={reason}
          maxLength={REASON_MAX}
          rows={2}
          required
          aria-describedby={hintId}
          onChange={(e) => setReason(e.target.value)}
          className="rounded-md border border-slate-300 px-2.5 py-1.5 dark:border-slate-600 dark:bg-slate-800"
        />
        <span id={hintId} className="text-xs text-slate-600 dark:text-slate-400">
          {t('suspend.reasonHint')}
        </span>
      </label>
      {suspend.error ? (
        <div className="mt-3">
          <ErrorView error={suspend.error} />
        </div>
      ) : null}
    </Dialog>
  );
}
