import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Pipeline } from '../../../kit/index.ts';
import { notify } from '../../core/notices.ts';
import { Button } from '../../components/button.tsx';
import { AnsweredDialog } from './answered-dialog.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { useClearCache } from './queries.ts';
import { useServiceDown } from '../../shared/service-down.ts';

const STAGES = ['sensor', 'filter', 'joint'] as const;

export function CacheDialog({ pipeline, onClose }: { pipeline: Pipeline; onClose: () => void }) {
  const { t } = useTranslation('pipelines');
  const clear = useClearCache();
  const down = useServiceDown();
  const [stages, setStages] = useState({ sensor: false, filter: false, joint: false });
  const chosen = stages.sensor || stages.filter || stages.joint;
  const box = (key: keyof typeof stages) => (
    <label key={key} className="flex items-start gap-2">
      <input
        type="checkbox"
        name={key}
        checked={stages[key]}
        onChange={(e) => setStages({ ...stages, [key]: e.target.checked })}
        className="mt-0.5"
      />
      <span>{t(`cache.${key}`)}</span>
    </label>
  );
  return (
    <AnsweredDialog
      title={t('cache.title', { name: pipeline.name })}
      answered={clear.data !== undefined}
      onClose={onClose}
      action={
        <Button
          variant="danger"
          disabled={clear.isPending}
          disabledReason={down?.reason ?? (chosen ? undefined : t('cache.pickOne'))}
          onClick={() =>
            clear.mutate(
              { id: pipeline.id, stages },
              {
                onSuccess: () =>
                  notify({ kind: 'success', text: t('cache.cleared', { name: pipeline.name }) }),
              },
            )
          }
        >
          {clear.isPending ? t('cache.submitting') : t('cache.submit')}
        </Button>
      }
    >
      {clear.data ? (
        // What the service answered, beside the notice that the cache is cleared.
        <p
          role="status"
          data-testid="cache-outcome"
          className="rounded-md border border-emerald-300 bg-emerald-50 px-3 py-2 text-emerald-900 dark:border-emerald-800 dark:bg-emerald-950 dark:text-emerald-100"
        >
          {t('cache.answer', {
            name: pipeline.name,
            status: clear.data.status,
            message: clear.data.message,
          })}
        </p>
      ) : (
        <>
          <p className="mb-3 text-slate-600 dark:text-slate-300">{t('cache.intro')}</p>
          <div className="flex flex-col gap-2">{STAGES.map(box)}</div>
        </>
      )}
      {clear.error ? (
        <div className="mt-3">
          <ErrorView error={clear.error} />
        </div>
      ) : null}
    </AnsweredDialog>
  );
}
