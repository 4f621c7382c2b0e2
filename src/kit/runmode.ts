// A pipeline's Runmode as a dashboard acts on it. interfaces.md shows the values run and stop
// only; another product may write them in capitals, or as other English words for the same
// two states. Words this kit does not know (a product's own language, say) are told as
// unknown rather than guessed: the caller shows the word as written and offers both actions.

/** Whether a pipeline runs its requests, holds them, or says so in words not known here. */
export type RunmodeState = 'run' | 'stop' | 'unknown';

const RUN_WORDS: ReadonlySet<string> = new Set([
  'run',
  'running',
  'resumed',
  'active',
  'enabled',
  'started',
  'on',
]);
const STOP_WORDS: ReadonlySet<string> = new Set([
  'stop',
  'stopped',
  'suspend',
  'suspended',
  'paused',
  'pause',
  'held',
  'disabled',
  'halted',
  'off',
]);

/**
 * What a Runmode word says, whatever its case and blanks.
 *
 * @example
 * runmodeState('RUNNING') // 'run'
 * runmodeState('停止') // 'unknown'
 */
export function runmodeState(runmode: string): RunmodeState {
  const word = runmode.trim().toLowerCase();
  if (RUN_WORDS.has(word)) return 'run';
  if (STOP_WORDS.has(word)) return 'stop';
  return 'unknown';
}
