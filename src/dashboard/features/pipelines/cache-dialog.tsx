import { useState } from 'react';
import type { Pipeline } from '../../../kit/index.ts';
import { notify } from '../../app/notices.ts';
import { Button } from '../../components/button.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { useClearCache } from './queries.ts';
import { strings } from './strings.ts';

export function CacheDialog({ pipeline, onClose }: { pipeline: Pipeline; onClose: () => void }) {
  const clear = useClearCache();
  const [stages, setStages] = useState({ sensor: false, filter: false, joint: false });
  const chosen = stages.sensor || stages.filter || stages.joint;
  const box = (key: keyof typeof stages, label: string) => (
    <label className="flex items-start gap-2">
      <input
        type="checkbox"
        name={key}
        checked={stages[key]}
        onChange={(e) => setStages({ ...stages, [key]: e.target.checked })}
        className="mt-0.5"
      />
      <span>{label}</span>
    </label>
  );
  return (
    <Dialog
      open
      title={strings.cache.title(pipeline.name)}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose}>{strings.cancel}</Button>
          <Button
            variant="danger"
            disabled={clear.isPending}
            disabledReason={chosen ? undefined : strings.cache.pickOne}
            onClick={() =>
              clear.mutate(
                { id: pipeline.id, stages },
                {
                  onSuccess: () => {
                    notify({ kind: 'success', text: strings.cache.done(pipeline.name) });
                    onClose();
                  },
                },
              )
            }
          >
            {strings.cache.submit}
          </Button>
        </>
      }
    >
      <p className="mb-3 text-slate-600 dark:text-slate-300">{strings.cache.intro}</p>
      <div className="flex flex-col gap-2">
        {box('sensor', strings.cache.sensor)}
        {box('filter', strings.cache.filter)}
        {box('joint', strings.cache.joint)}
      </div>
      {clear.error ? (
        <div className="mt-3">
          <ErrorView error={clear.error} />
        </div>
      ) : null}
    </Dialog>
  );
}
