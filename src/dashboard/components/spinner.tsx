import { useTranslation } from 'react-i18next';

export function Spinner({ label }: { label?: string }) {
  const { t } = useTranslation();
  return (
    <div
      role="status"
      className="flex items-center gap-2 py-6 text-sm text-slate-500 dark:text-slate-400"
    >
      <span
        className="size-4 animate-spin rounded-full border-2 border-slate-300 border-t-teal-600"
        aria-hidden="true"
      />
      {label ?? t('loading')}
    </div>
  );
}
