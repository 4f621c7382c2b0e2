/*
 * Text is text (issue 39, item 4). What a client sends is refused when it holds a control
 * character or half of a surrogate pair (pipelineapi/params.ts, auth/session-params.ts);
 * what the server must keep whatever it holds (an upstream's words, a refused sign-in's
 * name) is kept with such characters written out as `\u0000`, the one notation used
 * everywhere (the audit, the request index, any value bound to the shared store).
 *
 * Control characters are Unicode's Cc: C0 (U+0000–U+001F), DEL and C1 (U+007F–U+009F).
 * Tab, line feed and carriage return are text in a multi-line field (a reason, a message)
 * and controls in a single-line one (a name, an id). PostgreSQL cannot store NUL at all
 * ("invalid byte sequence 0x00"); the rest would reach a log, a CSV cell or a terminal as
 * commands rather than text. A lone surrogate is no character: UTF-8 cannot write it, and
 * each driver would turn it into U+FFFD on its own. U+202E and the other bidirectional
 * overrides are characters, kept as they are: every page renders them as text.
 */

/* eslint-disable no-control-regex -- matching control characters is the point */
const SINGLE_LINE =
  /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const MULTI_LINE =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/* eslint-enable no-control-regex */

const globally = (pattern: RegExp) => new RegExp(pattern.source, 'g');
const SINGLE_LINE_ALL = globally(SINGLE_LINE);
const MULTI_LINE_ALL = globally(MULTI_LINE);

/** Whether tab, line feed and carriage return are text here (`multiLine`) or controls. */
export interface TextKind {
  readonly multiLine?: boolean | undefined;
}

/** A character as a person reads it in a message: `U+0000`. */
const codePoint = (character: string): string =>
  `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Why `text` is not text, in words that follow a parameter's name ("holds the control
 * character U+0000"); undefined when it is text.
 */
export function notText(text: string, kind: TextKind = {}): string | undefined {
  const found = (kind.multiLine ? MULTI_LINE : SINGLE_LINE).exec(text);
  if (found === null) return undefined;
  const character = found[0];
  return /[\ud800-\udfff]/.test(character)
    ? `holds half of a surrogate pair (${codePoint(character)}), which is not text`
    : `holds the control character ${codePoint(character)}`;
}

/**
 * `text` with every control character (and lone surrogate) written as `\u0000`, so that it
 * can be stored and shown as it came; text that holds none is returned as it is.
 */
export function escapeControls(text: string, kind: TextKind = {}): string {
  if (!(kind.multiLine ? MULTI_LINE : SINGLE_LINE).test(text)) return text;
  return text.replace(
    kind.multiLine ? MULTI_LINE_ALL : SINGLE_LINE_ALL,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
