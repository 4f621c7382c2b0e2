import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { paths } from '../../paths.ts';
import { useFollowedRequests } from '../../shared/follow.ts';
import { useStatusSemantics } from '../../shared/use-status-semantics.ts';
import { outcomeText } from './outcome.ts';

const TONES = {
  busy: 'border-slate-300 bg-slate-50 text-slate-800 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100',
  good: 'border-emerald-300 bg-emerald-50 text-emerald-900 dark:border-emerald-800 dark:bg-emerald-950 dark:text-emerald-100',
  bad: 'border-red-300 bg-red-50 text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100',
} as const;

/** Follows the request an exec started until it ends, and says how it ended. */
export function ExecOutcome({ requestId }: { requestId: string }) {
  const { t } = useTranslation('pipelines');
  const [followed] = useFollowedRequests([requestId]);
  const { failed } = useStatusSemantics();
  const outcome = followed
    ? outcomeText(followed, t, failed)
    : { text: t('exec.waiting'), tone: 'busy' as const };
  return (
    <div className="flex flex-col gap-3">
      <p>
        {t('exec.accepted')}{' '}
        <Link
          to={paths.request(requestId)}
          className="font-mono font-medium break-all text-teal-700 underline dark:text-teal-400"
        >
          {requestId}
        </Link>
      </p>
      <div>
        <h3 className="mb-1 font-medium">{t('exec.outcome')}</h3>
        <p
          role="status"
          data-testid="exec-outcome"
          data-tone={outcome.tone}
          className={`rounded-md border px-3 py-2 break-words ${TONES[outcome.tone]}`}
        >
          {outcome.text}
        </p>
      </div>
    </div>
  );
}
