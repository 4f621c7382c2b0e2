import { startTransition, useOptimistic, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useClients } from '../../core/auth.ts';
import { Button } from '../../components/button.tsx';
import { TextInput } from '../../components/fields.tsx';
import { describeError } from '../../shared/describe-error.ts';
import { dayOfRequest, paths, ymdToIso } from '../../paths.ts';
import { findRequestOnDay } from './queries.ts';
import { jumpTarget } from './view.ts';

const LABEL = 'font-medium text-slate-700 dark:text-slate-200';

/**
 * Statuses to show, any number of them, as checkboxes in a disclosure: the summary names
 * what is chosen, so the header stays one line however many statuses the service has.
 */
export function StatusFilter({
  choices,
  failed,
  chosen,
  onToggle,
  onClear,
}: {
  choices: readonly string[];
  /** The service's failed words: one box ticks them together ("Failed: Error, Abort"). */
  failed: readonly string[];
  chosen: readonly string[];
  onToggle: (status: string | readonly string[], on: boolean) => void;
  onClear: () => void;
}) {
  // The URL changes in a transition that waits for the new page of requests: the boxes
  // show what was clicked at once, until the URL settles.
  const { t } = useTranslation('requests');
  const [current, setCurrent] = useOptimistic(chosen);
  const toggle = (status: string | readonly string[], on: boolean) =>
    startTransition(() => {
      const words = typeof status === 'string' ? [status] : status;
      setCurrent(
        on ? [...new Set([...current, ...words])] : current.filter((s) => !words.includes(s)),
      );
      onToggle(status, on);
    });
  const allFailed = failed.length > 0 && failed.every((s) => current.includes(s));
  return (
    <div className="flex flex-col gap-1 text-sm">
      <span className={LABEL} id="status-filter-label">
        {t('status')}
      </span>
      <details className="relative" data-testid="status-filter">
        <summary
          aria-describedby="status-filter-label"
          className="cursor-pointer rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm shadow-xs focus-visible:outline-2 focus-visible:outline-teal-600 dark:border-slate-600 dark:bg-slate-800"
        >
          {current.length === 0 ? t('allStatuses') : current.join(', ')}
        </summary>
        <fieldset className="absolute z-20 mt-1 flex min-w-44 flex-col gap-1 rounded-md border border-slate-200 bg-white p-2 shadow-lg dark:border-slate-700 dark:bg-slate-900">
          <legend className="sr-only">{t('status')}</legend>
          {failed.length > 1 ? (
            <label className="flex items-center gap-2 border-b border-slate-200 px-1 pt-0.5 pb-1.5 dark:border-slate-700">
              <input
                type="checkbox"
                data-testid="status-class-failed"
                checked={allFailed}
                onChange={(e) => toggle(failed, e.target.checked)}
              />
              {t('failedClass', { list: failed.join(', ') })}
            </label>
          ) : null}
          {choices.map((status) => (
            <label key={status} className="flex items-center gap-2 px-1 py-0.5">
              <input
                type="checkbox"
                checked={current.includes(status)}
                onChange={(e) => toggle(status, e.target.checked)}
              />
              {status || t('noStatus')}
            </label>
          ))}
          <Button size="sm" variant="ghost" disabled={chosen.length === 0} onClick={onClear}>
            {t('allStatuses')}
          </Button>
        </fieldset>
      </details>
    </div>
  );
}

/** The service's search, asked on submit rather than on every key (each is a request). */
export function SearchBox({
  value,
  onSearch,
}: {
  value: string | undefined;
  onSearch: (q: string) => void;
}) {
  const { t } = useTranslation('requests');
  const [text, setText] = useState(value ?? '');
  // Follows the URL when it changes under the box (back, a link, "Today").
  const [shown, setShown] = useState(value);
  if (shown !== value) {
    setShown(value);
    setText(value ?? '');
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSearch(text.trim());
  };
  return (
    <form role="search" onSubmit={submit} className="flex items-end gap-1">
      <label className="flex flex-col gap-1 text-sm">
        <span className={LABEL}>{t('search')}</span>
        <TextInput
          type="search"
          value={text}
          maxLength={200}
          placeholder={t('searchHint')}
          onChange={(e) => setText(e.target.value)}
        />
      </label>
      <Button type="submit">{t('searchGo')}</Button>
    </form>
  );
}

/**
 * A box to go straight to a request. An id names its own day, and the detail page reads
 * any day: such an id opens at once, whatever day the page shows. Other text is looked for
 * in the day shown: its detail when the day has it, else a plain sentence that it does not
 * (a notice in the page, not a tooltip).
 */
export function JumpToRequest({ date }: { date: string }) {
  const { t } = useTranslation('requests');
  const { pipeline } = useClients();
  const navigate = useNavigate();
  const [text, setText] = useState('');
  const [answer, setAnswer] = useState<{ id: string; date: string; error?: string }>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const target = jumpTarget(text, dayOfRequest);
    if (!target) return;
    const id = target.id;
    if (target.kind === 'open') {
      void navigate(paths.request(id));
      return;
    }
    setBusy(true);
    setAnswer(undefined);
    try {
      if (await findRequestOnDay(pipeline, date, id)) void navigate(paths.request(id));
      else setAnswer({ id, date });
    } catch (error) {
      setAnswer({ id, date, error: describeError(error).message });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={(e) => void submit(e)} className="flex flex-col gap-1">
      <div className="flex items-end gap-1">
        <label className="flex flex-col gap-1 text-sm">
          <span className={LABEL}>{t('jump')}</span>
          <TextInput
            value={text}
            maxLength={100}
            spellCheck={false}
            className="w-72 max-w-full font-mono"
            placeholder={t('jumpHint')}
            onChange={(e) => setText(e.target.value)}
          />
        </label>
        <Button type="submit" disabled={busy}>
          {t('jumpGo')}
        </Button>
      </div>
      {answer ? (
        <p
          role="alert"
          data-testid="jump-answer"
          className="text-sm text-red-800 dark:text-red-300"
        >
          {answer.error ?? t('jumpMissing', { id: answer.id, day: ymdToIso(answer.date) })}
        </p>
      ) : null}
    </form>
  );
}
