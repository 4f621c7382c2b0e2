import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { paths } from '../../paths.ts';

const LONG = 80;
// Marks, the same in every language: the empty string, a long value's "show all", and blank
// text made visible (each space as ␠, tabs as ⇥, line ends as ↵).
const EMPTY_MARK = '∅';
const EXPAND_MARK = '⤢';
const visibleBlanks = (value: string) =>
  value.replaceAll(' ', '␠').replaceAll('\t', '⇥').replace(/\r?\n/g, '↵');

/**
 * One cell, with NULL, the empty string and blank text each shown differently, long
 * values cut with the whole value on demand, and links for request and pipeline ids.
 */
export function CellValue({
  column,
  value,
  onShowFull,
}: {
  column: string;
  value: string | null;
  onShowFull: () => void;
}) {
  const { t } = useTranslation('databases');
  if (value === null) {
    return (
      <span className="rounded bg-slate-200 px-1 font-sans text-[10px] font-semibold text-slate-600 italic dark:bg-slate-700 dark:text-slate-300">
        {t('nullValue')}
      </span>
    );
  }
  if (value === '') {
    return (
      <span
        className="font-sans text-[10px] text-slate-500 italic dark:text-slate-400"
        aria-label={t('emptyValue')}
      >
        {EMPTY_MARK} {t('emptyValue')}
      </span>
    );
  }
  if (value.trim() === '') {
    return <span className="text-amber-700 dark:text-amber-400">{visibleBlanks(value)}</span>;
  }
  // A request's or a pipeline's id leads to its page; the click is not the row's. Any shape:
  // a service behind the gateway names them its own way; a long text is no id, though.
  const isId = value.length <= LONG;
  const to =
    column === 'REQUESTID' && isId
      ? paths.request(value)
      : column === 'PIPELINEID' && isId
        ? paths.pipelines(value)
        : undefined;
  if (to !== undefined) {
    return (
      <Link
        to={to}
        onClick={(e) => e.stopPropagation()}
        className="text-teal-700 hover:underline dark:text-teal-400"
      >
        {value}
      </Link>
    );
  }
  if (value.length > LONG) {
    return (
      <span>
        {value.slice(0, LONG)}…{' '}
        <button
          type="button"
          aria-label={t('showFull')}
          title={t('showFull')}
          onClick={(e) => {
            e.stopPropagation();
            onShowFull();
          }}
          className="rounded px-1 text-teal-700 hover:bg-teal-50 dark:text-teal-400 dark:hover:bg-teal-950"
        >
          {EXPAND_MARK}
        </button>
      </span>
    );
  }
  return <>{value}</>;
}
