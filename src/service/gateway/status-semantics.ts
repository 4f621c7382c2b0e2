import {
  CONTRACT_WORDS,
  STATUS_CLASSES,
  VENDOR_DEFAULT_WORDS,
  type LearnedRefusal,
  type StatusClass,
  type StatusClassWords,
  type StatusSemantics as StatusesAnswer,
} from '../../kit/status-semantics.ts';

// What a service's status words mean (docs/gateway.md "Status words"): which say a request failed,
// waits, runs or has ended, and which a retry or a cancel may start from. Our own engine's
// words are its contract's (section 5); a vendor's are its own (an open set, interfaces.md
// shows few), so they come from the configuration, defaults from interfaces.md, and what
// the upstream itself refused. The overview's counts, badges, bulk selections, row actions
// and the request page's buttons all read them from `GET /mcapi/services`.

// The classes, the engine's words and interfaces.md's defaults are the kit's, as the services
// list tells them (kit/status-semantics.ts); this file reads and settles a vendor's words.
export { STATUS_CLASSES, type StatusClass };

/** Words per class as configured: a class not given takes its default. */
export type StatusWords = Partial<Record<StatusClass, readonly string[]>>;

/** Every class's words, settled: what the server acts on. */
export type StatusSemantics = StatusClassWords;

/** Our engine's words (contract section 5): known exactly, never learnt. */
export const EMBEDDED_STATUSES: StatusSemantics = CONTRACT_WORDS;

/** A vendor's words as far as interfaces.md names them (the kit tells why these). */
export const VENDOR_STATUSES: StatusSemantics = VENDOR_DEFAULT_WORDS;

/**
 * A status word as a flag or the services file may give it: a vendor's own (異常終了, En
 * attente: spaces inside are part of a word), one line of 1 to 64 characters without
 * commas, `;` or `=` (the flag's separators) and without a space at either end.
 */
const WORD = /^(?!\s)[^,;=\p{Cc}]{1,64}(?<!\s)$/u;

/** Whether `text` can be one status word of a flag or the services file (WORD). */
export const isStatusWord = (text: string): boolean => WORD.test(text);

/** A problem in status words, said in the words of the flag or file that gave them. */
export class StatusWordsError extends Error {
  override readonly name = 'StatusWordsError';
}

/** Checks one class's words: each as WORD says. */
export function checkWords(words: readonly string[], where: string): string[] {
  if (words.length === 0) return [];
  for (const word of words)
    if (!WORD.test(word))
      throw new StatusWordsError(
        `${where}: ${JSON.stringify(word)} is not a status word (1 to 64 characters of one line without commas, ; or =, and no space at either end)`,
      );
  return [...new Set(words)];
}

/**
 * `--upstream-statuses 'failed=Error,Abort;running=Running;cancellable=Wait,Running'`: each
 * class once, its words comma-separated (an empty list says "none"). Throws naming the flag.
 */
export function parseStatusesFlag(text: string, flag = '--upstream-statuses'): StatusWords {
  const words: Partial<Record<StatusClass, string[]>> = {};
  const parts = text
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0)
    throw new StatusWordsError(
      `${flag}: give class=words pairs separated by ;, e.g. failed=Error,Abort;running=Running`,
    );
  for (const part of parts) {
    const eq = part.indexOf('=');
    const name = (eq < 0 ? part : part.slice(0, eq)).trim();
    if (eq < 0)
      throw new StatusWordsError(`${flag}: ${JSON.stringify(part)} needs = (e.g. failed=Error)`);
    if (!(STATUS_CLASSES as readonly string[]).includes(name))
      throw new StatusWordsError(
        `${flag}: ${JSON.stringify(name)} is not a class; the classes are ${STATUS_CLASSES.join(', ')}`,
      );
    const key = name as StatusClass;
    if (words[key]) throw new StatusWordsError(`${flag}: ${key} is given twice`);
    const list = part
      .slice(eq + 1)
      .split(',')
      .map((w) => w.trim())
      .filter((w) => w !== '');
    words[key] = checkWords(list, `${flag}: ${key}`);
  }
  return words;
}

/**
 * A vendor's semantics from what was configured (`failedStatuses` and `statuses`, which
 * may not both give the failed words) over the defaults. Unless given: the final words
 * take the failed ones, retryable are the failed words, cancellable the waiting and
 * running ones. A word that both ends a request and waits or runs is refused.
 */
export function resolveStatuses(
  given: StatusWords | undefined,
  failedStatuses: readonly string[] | undefined,
  where: string,
): StatusSemantics {
  if (failedStatuses && given?.failed)
    throw new StatusWordsError(
      `${where}: the failed words are given twice (failedStatuses and statuses' failed); keep one`,
    );
  const failed = given?.failed ?? failedStatuses ?? VENDOR_STATUSES.failed;
  const waiting = given?.waiting ?? VENDOR_STATUSES.waiting;
  const running = given?.running ?? VENDOR_STATUSES.running;
  const final = [...new Set([...(given?.final ?? ['Finish']), ...failed])];
  const semantics: StatusSemantics = {
    failed,
    waiting,
    running,
    final,
    retryable: given?.retryable ?? failed,
    cancellable: given?.cancellable ?? [...new Set([...waiting, ...running])],
  };
  for (const word of final) {
    const clash = waiting.includes(word) ? 'waiting' : running.includes(word) ? 'running' : '';
    if (clash)
      throw new StatusWordsError(
        `${where}: ${word} cannot be both ${clash} and final (or failed); a request either goes on or has ended`,
      );
  }
  const both = waiting.find((w) => running.includes(w));
  if (both) throw new StatusWordsError(`${where}: ${both} cannot be both waiting and running`);
  return semantics;
}

/** Statuses learnt at most per service: a bound on what a misbehaving upstream can grow. */
const LEARNED_MAX = 64;

/**
 * What one upstream refused, kept in memory: a refusal may come from this version of the
 * product, and a restart (often after an upgrade or a change of configuration) asks again
 * at the cost of one refused call per status; nothing stale outlives the process, and no
 * table needs migrating on either database. Each gateway process learns on its own.
 */
export class LearnedRefusals {
  private readonly learned = new Map<string, LearnedRefusal>();

  record(refusal: LearnedRefusal): void {
    const key = `${refusal.action}\n${refusal.status}`;
    if (!this.learned.has(key) && this.learned.size >= LEARNED_MAX) return;
    this.learned.set(key, refusal);
  }

  refused(action: 'retry' | 'cancel', status: string): boolean {
    return this.learned.has(`${action}\n${status}`);
  }

  list(): LearnedRefusal[] {
    return [...this.learned.values()].sort((a, b) => a.at.localeCompare(b.at));
  }
}

/**
 * The refusals learnt of each upstream (an Upstream of upstream.ts), set by the directory
 * that made it. Keyed by the object alone, so that this file needs nothing of the client.
 */
const refusalsByUpstream = new WeakMap<object, LearnedRefusals>();

export function learnRefusalsOf(upstream: object, refusals: LearnedRefusals): void {
  refusalsByUpstream.set(upstream, refusals);
}

export function refusalsOf(upstream: object): LearnedRefusals | undefined {
  return refusalsByUpstream.get(upstream);
}

/** A service's semantics as `GET /mcapi/services` tells them (`statuses`): the kit's answer type. */
export type StatusesState = StatusesAnswer;

/**
 * The words the server itself acts on: the configured ones less what was learnt. Retry
 * all's default selection is the failed words the service still retries.
 */
export function effectiveStatuses(
  semantics: StatusSemantics,
  learned: LearnedRefusals | undefined,
): StatusSemantics {
  if (!learned) return semantics;
  return {
    ...semantics,
    retryable: semantics.retryable.filter((s) => !learned.refused('retry', s)),
    cancellable: semantics.cancellable.filter((s) => !learned.refused('cancel', s)),
  };
}
