import { Link } from 'react-router';
import { PIPELINE_ID_PATTERN } from '../../../kit/index.ts';
import { dayOfRequest, paths } from '../../paths.ts';
import { strings } from './strings.ts';

const LONG = 80;

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
  if (value === null) {
    return (
      <span className="rounded bg-slate-200 px-1 font-sans text-[10px] font-semibold text-slate-600 italic dark:bg-slate-700 dark:text-slate-300">
        {strings.nullValue}
      </span>
    );
  }
  if (value === '') {
    return (
      <span
        className="font-sans text-[10px] text-slate-500 italic dark:text-slate-400"
        aria-label={strings.emptyValue}
      >
        ∅ {strings.emptyValue}
      </span>
    );
  }
  if (value.trim() === '') {
    // Blank text made visible: each space as ␠, tabs as ⇥, line ends as ↵.
    return (
      <span className="text-amber-700 dark:text-amber-400">
        {value.replaceAll(' ', '␠').replaceAll('\t', '⇥').replace(/\r?\n/g, '↵')}
      </span>
    );
  }
  if (column === 'REQUESTID' && dayOfRequest(value)) {
    return (
      <Link
        to={paths.request(value)}
        onClick={(e) => e.stopPropagation()}
        className="text-teal-700 hover:underline dark:text-teal-400"
      >
        {value}
      </Link>
    );
  }
  if (column === 'PIPELINEID' && PIPELINE_ID_PATTERN.test(value)) {
    return (
      <Link
        to={paths.pipelines(value)}
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
          aria-label={strings.showFull}
          title={strings.showFull}
          onClick={(e) => {
            e.stopPropagation();
            onShowFull();
          }}
          className="rounded px-1 text-teal-700 hover:bg-teal-50 dark:text-teal-400 dark:hover:bg-teal-950"
        >
          ⤢
        </button>
      </span>
    );
  }
  return <>{value}</>;
}
