import type { AuditEntryAnswer, AuditVia } from '../../../kit/audit.ts';
import { holdsToken, isSecretName, REDACTED } from '../../secret-names.ts';
import { escapeControls } from '../text.ts';

/*
 * What one audit entry may hold, whatever a request sends: a bounded number of parameters,
 * each name and value cut to a length, secrets by name replaced, and the whole entry, as an
 * answer of /mcapi/audit writes it, at most ENTRY_BYTES of JSON. An entry that lost
 * anything says so: its parameters end with one named TRUNCATION_NOTE saying what went,
 * and it is read back with `truncated: true`. Control characters in any of its text (a
 * refused sign-in's name, an upstream's message) are written out as `\u0000` (db/text.ts):
 * the names and one-line fields lose tab and line breaks too, the message and values keep them.
 */

/** Largest entry, in bytes of its JSON (UTF-8) as /mcapi/audit answers it. */
export const ENTRY_BYTES = 4096;

/** The parameter that says what an entry lost; no parameter a client sends is called this. */
export const TRUNCATION_NOTE = '…';

/** How the caller was known (the kit's, with the answer it is part of). */
export type { AuditVia };

/** The fields of an entry as stored and answered, before `truncated`: the kit's answer's. */
export type AuditFields = Omit<AuditEntryAnswer, 'truncated'>;

interface Shape {
  /** Largest entry in bytes. */
  readonly bytes: number;
  readonly parameters: number;
  readonly name: number;
  readonly value: number;
  readonly message: number;
}

/** An entry of a signed-in caller, or of a change the server makes on someone's behalf. */
const FULL: Shape = { bytes: ENTRY_BYTES, parameters: 32, name: 64, value: 256, message: 512 };

/**
 * A call refused before anyone was known (no or wrong credentials): who sent what matters
 * less than that it happened, and anyone can send many.
 */
export const COMPACT: Shape = { bytes: 1024, parameters: 8, name: 32, value: 64, message: 256 };

/** Other text fields and the characters each keeps. */
const TEXT_FIELDS = {
  userName: 128,
  address: 64,
  service: 64,
  operation: 64,
  status: 64,
  requestId: 128,
} as const;

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

/**
 * The text in `max` characters, its last one `…`, never splitting a surrogate pair;
 * undefined when it fits already.
 */
function cut(text: string, max: number): string | undefined {
  if (text.length <= max) return undefined;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 2)) ? max - 2 : max - 1;
  return `${text.slice(0, Math.max(0, end))}…`;
}

/** One parameter's value as text: a repeated field's values joined by commas. */
function textOf(value: unknown): string {
  if (Array.isArray(value)) return value.map(textOf).join(',');
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value as string | number | boolean);
}

/**
 * The entry within its bounds. `parameters` are the call's fields as they came (a form's
 * strings and arrays, or any plain object); secrets by name keep their name and lose their
 * value. `stored` reads back an entry already bounded once (whose note is the server's own).
 */
export function boundEntry(
  entry: Omit<AuditFields, 'parameters'> & { readonly parameters: unknown },
  options: { readonly compact?: boolean; readonly stored?: boolean; readonly lost?: string } = {},
): AuditFields & { truncated: boolean } {
  const shape = options.compact ? COMPACT : FULL;
  const lost: string[] = options.lost ? [options.lost] : [];
  const text = <K extends keyof typeof TEXT_FIELDS>(name: K): AuditFields[K] => {
    const raw = entry[name];
    if (raw === null) return raw as AuditFields[K];
    // One line each: a refused sign-in's name with a NUL in it is kept, as `\u0000`.
    const value = escapeControls(raw);
    const shorter = cut(value, TEXT_FIELDS[name]);
    if (shorter === undefined) return value as AuditFields[K];
    lost.push(`${name} cut at ${TEXT_FIELDS[name]} characters`);
    return shorter as AuditFields[K];
  };
  // An upstream's refusal may hold any character (issue 39, item 4); kept, written out.
  let message = escapeControls(entry.message, { multiLine: true });
  const shortMessage = cut(message, shape.message);
  if (shortMessage !== undefined) {
    message = shortMessage;
    lost.push(`message cut at ${shape.message} characters`);
  }
  const bounded = {
    time: entry.time,
    day: entry.day,
    userName: text('userName'),
    via: entry.via,
    address: text('address'),
    service: text('service'),
    operation: text('operation'),
    parameters: {} as Record<string, string>,
    httpStatus: entry.httpStatus,
    status: text('status'),
    message,
    requestId: text('requestId'),
  };

  // The call's fields, within the count, each name and value within its length.
  const source =
    entry.parameters && typeof entry.parameters === 'object'
      ? Object.entries(entry.parameters as Record<string, unknown>)
      : [];
  let note = '';
  const candidates: [string, string][] = [];
  let namesCut = false;
  let valuesCut = false;
  for (const [rawName, rawValue] of source) {
    if (rawName === TRUNCATION_NOTE && options.stored) {
      note = textOf(rawValue);
      continue;
    }
    if (candidates.length >= shape.parameters) continue;
    let name = escapeControls(rawName === TRUNCATION_NOTE ? `(${rawName})` : rawName);
    const shortName = cut(name, shape.name);
    if (shortName !== undefined) {
      name = shortName;
      namesCut = true;
    }
    const text = textOf(rawValue);
    let value =
      isSecretName(rawName) || holdsToken(text)
        ? REDACTED
        : escapeControls(text, { multiLine: true });
    const shortValue = cut(value, shape.value);
    if (shortValue !== undefined) {
      value = shortValue;
      valuesCut = true;
    }
    candidates.push([name, value]);
  }
  if (namesCut) lost.push(`names cut at ${shape.name} characters`);
  if (valuesCut) lost.push(`values cut at ${shape.value} characters`);

  // As many as fit, in the order they came; room is kept for the note when one is due.
  const pairBytes = ([name, value]: [string, string]) => bytesOf(name) + bytesOf(value) + 2;
  const base = bytesOf({ ...bounded, truncated: false });
  const all = candidates.reduce((sum, pair) => sum + pairBytes(pair), 0);
  const lossless = lost.length === 0 && note === '' && source.length === candidates.length;
  const room = shape.bytes - base - (lossless && base + all <= shape.bytes ? 0 : 256);
  let used = 0;
  let kept = 0;
  for (const pair of candidates) {
    const size = pairBytes(pair);
    if (used + size > room) break;
    used += size;
    kept += 1;
  }
  const countedFrom = source.filter(([name]) => !(options.stored && name === TRUNCATION_NOTE));
  if (kept < countedFrom.length) lost.unshift(`${kept} of ${countedFrom.length} parameters kept`);
  const parameters: [string, string][] = candidates.slice(0, kept);
  const said = [note, ...lost].filter(Boolean).join('; ');
  if (said !== '') parameters.push([TRUNCATION_NOTE, cut(said, 200) ?? said]);
  // fromEntries makes every name an own field, `__proto__` included.
  bounded.parameters = Object.fromEntries(parameters);

  // The fixed fields alone can still be too long when every character needs escaping
  // (`\u0000` is six bytes): the longest of them is halved until the entry fits.
  const halvable = ['message', 'userName', 'requestId', 'status', 'service', 'operation'] as const;
  const result = { ...bounded, truncated: said !== '' };
  while (bytesOf(result) > shape.bytes) {
    const longest = halvable.reduce((a, b) =>
      bytesOf(result[a] ?? '') >= bytesOf(result[b] ?? '') ? a : b,
    );
    const value = result[longest] ?? '';
    if (value === '') break;
    result[longest] = value.length <= 2 ? '' : (cut(value, Math.floor(value.length / 2)) ?? '');
    if (!result.truncated) {
      result.truncated = true;
      result.parameters = { ...result.parameters, [TRUNCATION_NOTE]: `${longest} cut` };
    }
  }
  return result;
}
