import { useTranslation } from 'react-i18next';
import { runmodeState } from '../../kit/index.ts';
import type { StatusKind } from '../core/status-semantics.ts';
import { useStatusClass } from '../shared/use-status-semantics.ts';
const TONES = {
  slate:
    'bg-slate-100 text-slate-700 ring-slate-300 dark:bg-slate-800 dark:text-slate-200 dark:ring-slate-600',
  sky: 'bg-sky-50 text-sky-800 ring-sky-300 dark:bg-sky-950 dark:text-sky-200 dark:ring-sky-700',
  blue: 'bg-blue-50 text-blue-800 ring-blue-300 dark:bg-blue-950 dark:text-blue-200 dark:ring-blue-700',
  green:
    'bg-emerald-50 text-emerald-800 ring-emerald-300 dark:bg-emerald-950 dark:text-emerald-200 dark:ring-emerald-700',
  red: 'bg-red-50 text-red-800 ring-red-300 dark:bg-red-950 dark:text-red-200 dark:ring-red-700',
  amber:
    'bg-amber-50 text-amber-900 ring-amber-300 dark:bg-amber-950 dark:text-amber-200 dark:ring-amber-700',
  violet:
    'bg-violet-50 text-violet-800 ring-violet-300 dark:bg-violet-950 dark:text-violet-200 dark:ring-violet-700',
  indigo:
    'bg-indigo-50 text-indigo-800 ring-indigo-300 dark:bg-indigo-950 dark:text-indigo-200 dark:ring-indigo-700',
  cyan: 'bg-cyan-50 text-cyan-800 ring-cyan-300 dark:bg-cyan-950 dark:text-cyan-200 dark:ring-cyan-700',
} as const;

export type Tone = keyof typeof TONES;

/** Small symbols so that state is never told by colour alone. */
const SYMBOLS: Partial<Record<string, string>> = {
  Wait: '◷',
  Start: '▷',
  Process: '▶',
  Finish: '✓',
  Error: '✕',
  Stop: '■',
  run: '▶',
  stop: '❚❚',
};

export function Badge({
  tone,
  children,
  symbol,
}: {
  tone: Tone;
  children: string;
  symbol?: string | undefined;
}) {
  return (
    <span
      className={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${TONES[tone]}`}
    >
      {symbol ? <span aria-hidden="true">{symbol}</span> : null}
      {children}
    </span>
  );
}

/**
 * A status's tone and symbol come from what the service's words mean (its failed words are
 * red whatever they say: Error, Abort...); a word in none of its classes stays grey and
 * without a symbol, claiming nothing.
 */
const KIND_TONES: Record<StatusKind, Tone> = {
  failed: 'red',
  waiting: 'slate',
  running: 'blue',
  done: 'green',
  stopped: 'amber',
  unknown: 'slate',
};
const KIND_SYMBOLS: Record<StatusKind, string | undefined> = {
  failed: '✕',
  waiting: '◷',
  running: '▶',
  done: '✓',
  stopped: '■',
  unknown: undefined,
};
const STAGE_TONES: Record<string, Tone> = {
  Sensor: 'violet',
  Filter: 'indigo',
  Joint: 'cyan',
  Complete: 'green',
};

export function StatusBadge({ status }: { status: string }) {
  const { kind } = useStatusClass(status);
  // Our engine's Start keeps its lighter tone beside Process, as it always had.
  const tone = kind === 'running' && status === 'Start' ? 'sky' : KIND_TONES[kind];
  return (
    <Badge tone={tone} symbol={kind === 'running' ? (SYMBOLS[status] ?? '▶') : KIND_SYMBOLS[kind]}>
      {status}
    </Badge>
  );
}

export function StageBadge({ stage }: { stage: string }) {
  return <Badge tone={STAGE_TONES[stage] ?? 'slate'}>{stage || '—'}</Badge>;
}

/** interfaces.md's run and stop in the language's words; a product's own word as written. */
export function RunmodeBadge({ runmode }: { runmode: string }) {
  const { t } = useTranslation();
  const state = runmodeState(runmode);
  const tone = state === 'run' ? 'green' : state === 'stop' ? 'amber' : 'slate';
  return (
    <Badge tone={tone} symbol={state === 'unknown' ? undefined : SYMBOLS[state]}>
      {runmode === 'run' || runmode === 'stop' ? t(`runmode.${runmode}`) : runmode}
    </Badge>
  );
}
