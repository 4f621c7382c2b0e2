import { createReadStream } from 'node:fs';
import Papa from 'papaparse';
import { setField, type Row, type Value } from './values.ts';

export class InputError extends Error {
  override readonly name = 'InputError';
}

export type InputFormat = 'csv' | 'jsonl';

export function formatOf(filename: string, configured: 'auto' | InputFormat): InputFormat {
  if (configured !== 'auto') return configured;
  return /\.(jsonl|ndjson)$/i.test(filename) ? 'jsonl' : 'csv';
}

/** The longest record (a CSV row or a JSON line, without its line end) a read accepts. */
export const DEFAULT_MAX_RECORD_CHARS = 1_048_576;
/** The longest CSV field, as written (quotes included); by default the record limit. */
export const DEFAULT_MAX_FIELD_CHARS = DEFAULT_MAX_RECORD_CHARS;

export interface ReadLimits {
  readonly maxRecordChars?: number;
  readonly maxFieldChars?: number;
}

export interface ReadOptions extends ReadLimits {
  /** Checked before each chunk; once aborted, the read throws `signal.reason` as it is. */
  readonly signal?: AbortSignal;
}

interface Limits {
  readonly maxRecordChars: number;
  readonly maxFieldChars: number;
}

function limitsOf(options: ReadLimits): Limits {
  const maxRecordChars = options.maxRecordChars ?? DEFAULT_MAX_RECORD_CHARS;
  const maxFieldChars = options.maxFieldChars ?? maxRecordChars;
  for (const [name, value] of Object.entries({ maxRecordChars, maxFieldChars })) {
    if (!Number.isSafeInteger(value) || value < 1)
      throw new RangeError(`${name} must be a positive integer, not ${value}`);
  }
  return { maxRecordChars, maxFieldChars };
}

const characters = (n: number): string => `${n.toLocaleString('en')} characters`;

let papaCharacters = 0;

/**
 * Characters of input handed to Papa's parser so far in this process. The reader's tests
 * read it to show that each character is parsed once, whatever the shape of the file.
 */
export function charactersParsed(): number {
  return papaCharacters;
}

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const BOM = '\uFEFF';

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

type Overflow = 'record' | 'field';

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
class CsvFramer {
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
        case UNQUOTED_CR:
          if (chunk.charCodeAt(i) === LF) {
            ends = RECORD;
            at = i - 1;
            next = i + 1;
          } else state = UNQUOTED;
          break;
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
          else if (c === delimiterCode) {
            ends = FIELD;
            at = i;
            next = i + 1;
          } else if (c === newlineCode && !crlf) {
            ends = RECORD;
            at = i;
            next = i + 1;
          } else state = QUOTE_SEEN;
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
          if (c === delimiterCode) {
            ends = FIELD;
            at = i;
            next = i + 1;
          } else if (c === newlineCode && !crlf) {
            ends = RECORD;
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
        case CLOSING_CR:
          if (chunk.charCodeAt(i) === LF) {
            ends = RECORD;
            at = i - 1;
            next = i + 1;
          } else state = CLOSING;
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

/** Papa reads no more than this much of the text to guess its line end. */
const GUESS_SAMPLE = 1_048_576;

/**
 * Papa's own guess (guessLineEndings), made once for the whole input so that the framer and
 * every block's parse use the same line end: the majority among the line ends outside
 * quoted text, '\n' when there is none. When the sample stops short of the end of the
 * input, a quoted field still open and a '\r' whose next character is unknown are left
 * out, as they would be once the rest were seen.
 */
function guessNewline(text: string, final: boolean): '\r\n' | '\n' | '\r' {
  let sample = text.slice(0, GUESS_SAMPLE);
  const partial = !final || sample.length < text.length;
  if (partial && sample.endsWith('\r')) sample = sample.slice(0, -1);
  sample = sample.replace(partial ? /"[^]*?(?:"|$)/g : /"[^]*?"/g, '');
  const pieces = sample.split('\r');
  const firstLf = sample.indexOf('\n');
  if (pieces.length === 1 || (firstLf >= 0 && firstLf < (pieces[0] as string).length)) return '\n';
  let crlf = 0;
  for (const piece of pieces) if (piece.charCodeAt(0) === LF) crlf++;
  return crlf >= pieces.length / 2 ? '\r\n' : '\r';
}

/**
 * Turns chunks of CSV text into blocks of complete records. The line end is guessed from
 * the first MiB of text (or all of it, when shorter), then a framer cuts each chunk after
 * its last complete record; what follows waits for the next chunk. Every character
 * therefore goes into exactly one block.
 */
class CsvBlocks {
  private framer: CsvFramer | undefined;
  newline: '\r\n' | '\n' | '\r' = '\n';
  private first = true;
  /** Text before the line end is known. */
  private undecided: string[] = [];
  private undecidedLength = 0;
  /** Text after the last complete record, and its offset in the whole text. */
  private parts: string[] = [];
  private partsLength = 0;
  private partsStart = 0;

  constructor(
    private readonly delimiter: string,
    private readonly limits: Limits,
  ) {}

  push(chunk: string): { block: string; overflow?: Overflow } {
    if (this.first && chunk.length > 0) {
      this.first = false;
      if (chunk.startsWith(BOM)) chunk = chunk.slice(1);
    }
    if (chunk.length === 0) return { block: '' };
    if (this.framer) return this.frame(this.framer, chunk);
    this.undecided.push(chunk);
    this.undecidedLength += chunk.length;
    // Guessing from less text than Papa would could tip its vote; guessing from more would
    // buffer a file without line ends for nothing.
    if (this.undecidedLength < GUESS_SAMPLE) return { block: '' };
    return this.decide(false);
  }

  /** The text after the last complete record, at the end of the input. */
  end(): { block: string; overflow?: Overflow } {
    const framed = this.framer ? { block: '' } : this.decide(true);
    if (framed.overflow) return framed;
    const rest = this.parts.join('');
    this.parts = [];
    this.partsLength = 0;
    return { block: framed.block + rest };
  }

  private decide(final: boolean): { block: string; overflow?: Overflow } {
    const text = this.undecided.join('');
    this.undecided = [];
    this.newline = guessNewline(text, final);
    this.framer = new CsvFramer(this.delimiter, this.newline, this.limits);
    return text.length > 0 ? this.frame(this.framer, text) : { block: '' };
  }

  private frame(framer: CsvFramer, chunk: string): { block: string; overflow?: Overflow } {
    const chunkStart = this.partsStart + this.partsLength;
    const { end, overflow } = framer.scan(chunk);
    // A cut is always inside this chunk: earlier chunks ended no record, or were cut already.
    if (end <= this.partsStart) {
      this.parts.push(chunk);
      this.partsLength += chunk.length;
      return overflow ? { block: '', overflow } : { block: '' };
    }
    const cut = end - chunkStart;
    const block = this.parts.join('') + chunk.slice(0, cut);
    this.parts = cut < chunk.length ? [chunk.slice(cut)] : [];
    this.partsLength = chunk.length - cut;
    this.partsStart = end;
    return overflow ? { block, overflow } : { block };
  }
}

/** Turns blocks of complete records into rows: the header row, field counts, batches. */
class CsvTable {
  private names: string[] | undefined;
  private protoColumn = false;
  /** Rows read so far, the header included; blank lines are not counted. */
  line = 0;
  private batch: Row[] = [];

  constructor(
    private readonly delimiter: string,
    private readonly batchSize: number,
  ) {}

  /** Parses complete records; returns the batches they filled. */
  take(block: string, newline: '\r\n' | '\n' | '\r'): Row[][] {
    if (block.length === 0) return [];
    papaCharacters += block.length;
    // Papa's core parser rather than Papa.parse: on the same blocks Papa.parse took about
    // twice as long (32 MB of short rows: 0.58 s against 0.36 s, most of it in the garbage
    // collector) and would drop a byte order mark that begins a later block. Blank lines
    // are skipped below exactly as its skipEmptyLines: true would.
    const parser = new Papa.Parser({ delimiter: this.delimiter, newline, quoteChar: '"' });
    // Typed `any` by @types/papaparse; it returns what Papa.parse returns.
    const result = parser.parse(block, 0, false) as Papa.ParseResult<string[]>;
    if (result.errors.some((e) => e.type === 'Quotes'))
      throw new InputError('a quoted field is not terminated');
    const full: Row[][] = [];
    for (const cells of result.data) {
      if (cells.length === 1 && cells[0] === '') continue;
      this.line++;
      const names = this.names;
      if (!names) {
        const header = cells.map((name, i) => (i === 0 ? name.replace(/^\uFEFF/, '') : name));
        if (header.some((n) => n === ''))
          throw new InputError('the header row has an empty column name');
        if (new Set(header).size !== header.length)
          throw new InputError('the header row names a column twice');
        this.names = header;
        this.protoColumn = header.includes('__proto__');
        continue;
      }
      if (cells.length !== names.length) {
        throw new InputError(
          `row ${this.line} has ${cells.length} fields, the header has ${names.length}`,
        );
      }
      const row: Row = {};
      if (this.protoColumn) {
        for (let i = 0; i < names.length; i++)
          setField(row, names[i] as string, cells[i] as string);
      } else {
        for (let i = 0; i < names.length; i++) row[names[i] as string] = cells[i] as string;
      }
      this.batch.push(row);
      if (this.batch.length >= this.batchSize) {
        full.push(this.batch);
        this.batch = [];
      }
    }
    return full;
  }

  rest(): Row[] {
    const rest = this.batch;
    this.batch = [];
    return rest;
  }

  /** The error for a record that passed a limit: it is the row after those read. */
  overflow(kind: Overflow, limits: Limits): InputError {
    const row = this.line + 1;
    return new InputError(
      kind === 'record'
        ? `row ${row} is longer than ${characters(limits.maxRecordChars)} (the limit for one record)`
        : `row ${row} has a field longer than ${characters(limits.maxFieldChars)} (the limit for one field)`,
    );
  }
}

/**
 * Streams a CSV file with a header row in batches of rows. PapaParse handles RFC 4180
 * quoting (delimiters, newlines and doubled quotes inside quotes) and reports unterminated
 * quotes; a row whose field count differs from the header's is refused here, never padded
 * or merged. It parsed 1,000,000 rows about four times faster than csv-parse on this kind of
 * machine; uDSV was faster still but silently merges or drops malformed rows.
 *
 * Papa is only ever handed complete records (see CsvBlocks): fed a stream, it parses the
 * unfinished record again with every chunk, which made a record longer than a chunk cost
 * time quadratic in its length.
 */
async function* readCsv(
  source: AsyncIterable<string>,
  delimiter: string,
  batchSize: number,
  limits: Limits,
  signal: AbortSignal | undefined,
): AsyncGenerator<Row[]> {
  if (delimiter.length !== 1) throw new InputError('the delimiter must be one character');
  // Papa replaces a delimiter it cannot use by ','; the framer must split alike.
  const usable = !(Papa.BAD_DELIMITERS as readonly string[]).includes(delimiter);
  const delim = usable ? delimiter : ',';
  const blocks = new CsvBlocks(delim, limits);
  const table = new CsvTable(delim, batchSize);
  signal?.throwIfAborted();
  for await (const chunk of source) {
    signal?.throwIfAborted();
    const { block, overflow } = blocks.push(chunk);
    for (const batch of table.take(block, blocks.newline)) {
      yield batch;
      // A block can hold many batches (the first holds a MiB of text).
      signal?.throwIfAborted();
    }
    if (overflow) throw table.overflow(overflow, limits);
  }
  signal?.throwIfAborted();
  const { block, overflow } = blocks.end();
  for (const batch of table.take(block, blocks.newline)) {
    yield batch;
    signal?.throwIfAborted();
  }
  if (overflow) throw table.overflow(overflow, limits);
  const rest = table.rest();
  if (rest.length > 0) yield rest;
}

function toValue(value: unknown): Value {
  if (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'number' ||
    typeof value === 'boolean'
  )
    return value;
  return JSON.stringify(value) ?? null;
}

/**
 * Splits chunks into lines as readline does ('\n', '\r\n' or a lone '\r' ends one), but
 * refuses a line as soon as it passes the limit: readline buffers a whole line first.
 */
async function* linesOf(
  source: AsyncIterable<string>,
  maxChars: number,
  signal: AbortSignal | undefined,
): AsyncGenerator<string[]> {
  const BREAK = /\r\n|\r|\n/g;
  let parts: string[] = [];
  let partsLength = 0;
  let number = 0;
  let skipLf = false;
  const tooLong = (): InputError =>
    new InputError(
      `line ${number + 1} is longer than ${characters(maxChars)} (the limit for one record)`,
    );
  signal?.throwIfAborted();
  for await (const chunk of source) {
    signal?.throwIfAborted();
    if (chunk.length === 0) continue;
    let start = skipLf && chunk.charCodeAt(0) === LF ? 1 : 0;
    skipLf = false;
    const lines: string[] = [];
    BREAK.lastIndex = start;
    for (let m = BREAK.exec(chunk); m; m = BREAK.exec(chunk)) {
      const piece = chunk.slice(start, m.index);
      if (partsLength + piece.length > maxChars) throw tooLong();
      lines.push(parts.length > 0 ? parts.join('') + piece : piece);
      number++;
      parts = [];
      partsLength = 0;
      start = m.index + m[0].length;
      // A '\r' that ends the chunk and a '\n' that begins the next are one line end.
      if (start === chunk.length && m[0] === '\r') skipLf = true;
    }
    if (start < chunk.length) {
      parts.push(chunk.slice(start));
      partsLength += chunk.length - start;
      if (partsLength > maxChars) throw tooLong();
    }
    if (lines.length > 0) yield lines;
  }
  if (parts.length > 0) yield [parts.join('')];
}

/** Streams JSON Lines: one object per line; blank lines are skipped. */
async function* readJsonLines(
  source: AsyncIterable<string>,
  batchSize: number,
  limits: Limits,
  signal: AbortSignal | undefined,
): AsyncGenerator<Row[]> {
  let batch: Row[] = [];
  let number = 0;
  for await (const lines of linesOf(source, limits.maxRecordChars, signal)) {
    for (const text of lines) {
      number++;
      if (text.trim() === '') continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new InputError(`line ${number} is not valid JSON`);
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
        throw new InputError(`line ${number} is not a JSON object`);
      }
      const row: Row = {};
      for (const [key, value] of Object.entries(parsed)) setField(row, key, toValue(value));
      batch.push(row);
      if (batch.length >= batchSize) {
        yield batch;
        batch = [];
        signal?.throwIfAborted();
      }
    }
  }
  if (batch.length > 0) yield batch;
}

/**
 * Parses text (a file's chunks, in order) into batches of rows. Time and memory are linear
 * in the text whatever its shape: a record (or JSON line) longer than `maxRecordChars`, or
 * a CSV field longer than `maxFieldChars`, fails the read as soon as it passes the limit.
 */
export function parseRows(
  source: AsyncIterable<string>,
  format: InputFormat,
  delimiter: string,
  batchSize: number,
  options: ReadOptions = {},
): AsyncGenerator<Row[]> {
  const limits = limitsOf(options);
  return format === 'jsonl'
    ? readJsonLines(source, batchSize, limits, options.signal)
    : readCsv(source, delimiter, batchSize, limits, options.signal);
}

/** Streams a file's text in large chunks. */
export function fileText(path: string): AsyncIterable<string> {
  return createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 18 });
}
