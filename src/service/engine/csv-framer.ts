import type { Limits } from './read-limits.ts';

const QUOTE = 0x22;
export const LF = 0x0a;
const CR = 0x0d;
export const BOM = '\uFEFF';

/** What String.prototype.trim removes: Papa lets these stand between a closing quote and a delimiter. */
function isTrimmed(c: number): boolean {
  return (
    c === 0x20 ||
    (c >= 0x09 && c <= 0x0d) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

// Where the framer is, between two characters of the input.
const FIELD_START = 0; // the next character begins a field
const UNQUOTED = 1; // inside a field that did not begin with a quote
const UNQUOTED_CR = 2; // there, just after a '\r' that a '\n' would make a '\r\n' line end
const QUOTED = 3; // inside a quoted field
const QUOTE_SEEN = 4; // just after a quote inside a quoted field: escaped, or closing?
const CLOSING = 5; // after a quote and white space only: closes on a delimiter or line end
const CLOSING_CR = 6; // there, just after a '\r' that a '\n' would make a '\r\n' line end
type FramerState = 0 | 1 | 2 | 3 | 4 | 5 | 6;
const FIELD = 1;
const RECORD = 2;

export type Overflow = 'record' | 'field';

interface Frame {
  /** Offset just past the last complete record seen, or -1 when this chunk ended none. */
  readonly end: number;
  /** Set when a record or field passed its limit; `end` is then that record's start. */
  readonly overflow?: Overflow;
}

/**
 * Finds record boundaries in CSV text that arrives in chunks, following Papa's rules so that
 * both agree on every boundary: a field is quoted only when its first character is a quote;
 * inside, `""` is a quote; a quote closes the field only when a delimiter or the line end
 * follows, with nothing but white space between; any other quote is content. No text is
 * searched twice, and a record's length is checked as it grows, so a record that never
 * ends is refused after `maxRecordChars` characters rather than buffered.
 */
export class CsvFramer {
  private state: FramerState = FIELD_START;
  /** Offset of the next chunk's first character in the whole text. */
  private offset = 0;
  private recordStart = 0;
  /** Exact only when fields have a limit of their own (see `checkFields`). */
  private fieldStart = 0;
  private readonly delimiterCode: number;
  private readonly crlf: boolean;
  private readonly newlineCode: number;
  /** A field is never longer than its record: with a field limit no lower, checking records is enough. */
  private readonly checkFields: boolean;

  constructor(
    private readonly delimiter: string,
    private readonly newline: string,
    private readonly limits: Limits,
  ) {
    this.delimiterCode = delimiter.charCodeAt(0);
    this.crlf = newline === '\r\n';
    this.newlineCode = newline.charCodeAt(0);
    this.checkFields = limits.maxFieldChars < limits.maxRecordChars;
  }

  scan(chunk: string): Frame {
    const base = this.offset;
    const n = chunk.length;
    const { delimiter, newline, delimiterCode, crlf, newlineCode, checkFields } = this;
    const { maxRecordChars, maxFieldChars } = this.limits;
    const newlineLength = newline.length;
    let state = this.state;
    let recordStart = this.recordStart;
    let fieldStart = this.fieldStart;
    let end = -1;
    // The next quote, line end and delimiter at or after i; n when there is none, so that a
    // chunk without any is searched once, not once per record.
    let nextQuote = -1;
    let nextNewline = -1;
    let nextDelimiter = checkFields ? -1 : n;
    let i = 0;
    let overflow: Overflow | undefined;
    // Set by a state that ends a field (delimiter at `at`) or a record (line end at `at`);
    // scanning goes on at `next`. Handled in one place after the switch.
    let ends: 0 | typeof FIELD | typeof RECORD = 0;
    let at = 0;
    let next = 0;
    // What the character after a closing quote (and any white space) ends: the field (a
    // delimiter), the record (a one-character line end), or neither yet (0).
    const endedBy = (c: number): typeof ends =>
      c === delimiterCode ? FIELD : c === newlineCode && !crlf ? RECORD : 0;

    while (i < n) {
      switch (state) {
        case FIELD_START:
          fieldStart = base + i;
          if (chunk.charCodeAt(i) === QUOTE) {
            state = QUOTED;
            i++;
          } else state = UNQUOTED;
          break;
        case UNQUOTED: {
          if (nextNewline < i) {
            const found = chunk.indexOf(newline, i);
            nextNewline = found < 0 ? n : found;
          }
          if (nextQuote < i) {
            const found = chunk.indexOf('"', i);
            nextQuote = found < 0 ? n : found;
          }
          if (nextDelimiter < i) {
            const found = chunk.indexOf(delimiter, i);
            nextDelimiter = found < 0 ? n : found;
          }
          if (!checkFields && nextNewline < nextQuote) {
            // Records that end before the next quote: only the first (it may have begun
            // earlier) and the last line end matter, unless the records between them
            // may be too long. Text already searched is not searched again.
            const first = nextNewline;
            if (base + first - recordStart > maxRecordChars) {
              overflow = 'record';
              break;
            }
            let last = first;
            if (nextQuote - first > newlineLength) last = chunk.lastIndexOf(newline, nextQuote - 1);
            if (last - first - newlineLength > maxRecordChars) {
              for (let from = first + newlineLength; from < last;) {
                const to = chunk.indexOf(newline, from);
                if (to - from > maxRecordChars) {
                  recordStart = base + from;
                  overflow = 'record';
                  break;
                }
                from = to + newlineLength;
              }
              if (overflow) break;
            }
            i = last + newlineLength;
            end = recordStart = fieldStart = base + i;
            state = FIELD_START;
            break;
          }
          const stop = Math.min(nextNewline, nextQuote, nextDelimiter);
          if (stop === n) {
            const last = chunk.charCodeAt(n - 1);
            // Only reached when fields are not tracked: the next chunk begins a field.
            if (last === delimiterCode) state = FIELD_START;
            else if (crlf && last === CR) state = UNQUOTED_CR;
            i = n;
          } else if (stop === nextNewline) {
            ends = RECORD;
            at = stop;
            next = stop + newlineLength;
          } else if (stop === nextDelimiter) {
            ends = FIELD;
            at = stop;
            next = stop + 1;
          } else if (stop > i && chunk.charCodeAt(stop - 1) === delimiterCode) {
            // A quote just after a delimiter opens a quoted field (fields are not tracked
            // here; when they are, the delimiter was handled first).
            fieldStart = base + stop;
            state = QUOTED;
            i = stop + 1;
          } else i = stop + 1; // a quote inside an unquoted field is content
          break;
        }
        case QUOTED: {
          if (nextQuote < i) {
            const found = chunk.indexOf('"', i);
            nextQuote = found < 0 ? n : found;
          }
          if (nextQuote === n) {
            i = n;
            break;
          }
          i = nextQuote + 1;
          // The usual cases, decided here rather than through QUOTE_SEEN and CLOSING.
          const c = i < n ? chunk.charCodeAt(i) : -1;
          if (c === QUOTE) i++;
          else {
            ends = endedBy(c);
            if (ends) {
              at = i;
              next = i + 1;
            } else state = QUOTE_SEEN;
          }
          break;
        }
        case QUOTE_SEEN:
          if (chunk.charCodeAt(i) === QUOTE) {
            state = QUOTED;
            i++;
          } else state = CLOSING;
          break;
        case CLOSING: {
          const c = chunk.charCodeAt(i);
          ends = endedBy(c);
          if (ends) {
            at = i;
            next = i + 1;
          } else if (c === CR && crlf) {
            if (i + 1 === n) {
              state = CLOSING_CR;
              i++;
            } else if (chunk.charCodeAt(i + 1) === LF) {
              ends = RECORD;
              at = i;
              next = i + 2;
            } else i++; // a '\r' alone is white space
          } else if (isTrimmed(c)) i++;
          else state = QUOTED; // the quote was content; this character is looked at again
          break;
        }
        case UNQUOTED_CR:
        case CLOSING_CR:
          // A '\r' ended the last chunk: a '\n' now makes it the line end; anything else goes
          // back to the state the '\r' was seen in, which looks at this character again.
          if (chunk.charCodeAt(i) === LF) {
            ends = RECORD;
            at = i - 1;
            next = i + 1;
          } else state = state === UNQUOTED_CR ? UNQUOTED : CLOSING;
          break;
      }
      if (overflow) break;
      if (ends === RECORD) {
        if (base + at - recordStart > maxRecordChars) overflow = 'record';
        else if (checkFields && base + at - fieldStart > maxFieldChars) overflow = 'field';
        if (overflow) break;
        i = next;
        end = recordStart = fieldStart = base + next;
        state = FIELD_START;
        ends = 0;
      } else if (ends === FIELD) {
        if (checkFields && base + at - fieldStart > maxFieldChars) {
          overflow = 'field';
          break;
        }
        i = next;
        fieldStart = base + next;
        state = FIELD_START;
        ends = 0;
      }
    }

    if (!overflow) {
      // A '\r' at the end may yet turn out to begin the line end.
      const pos = base + n - (state === UNQUOTED_CR || state === CLOSING_CR ? 1 : 0);
      if (pos - recordStart > maxRecordChars) overflow = 'record';
      else if (checkFields && state !== FIELD_START && pos - fieldStart > maxFieldChars)
        overflow = 'field';
    }
    this.state = state;
    this.recordStart = recordStart;
    this.fieldStart = fieldStart;
    this.offset = base + n;
    return overflow ? { end: recordStart, overflow } : { end };
  }
}
