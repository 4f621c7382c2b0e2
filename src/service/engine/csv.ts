import Papa from 'papaparse';
import { BOM, CsvFramer, LF, type Overflow } from './csv-framer.ts';
import { characters, InputError, type Limits } from './read-limits.ts';
import type { Batch } from './values.ts';

let papaCharacters = 0;

/**
 * Characters of input handed to Papa's parser so far in this process. The reader's tests
 * read it to show that each character is parsed once, whatever the shape of the file.
 */
export function charactersParsed(): number {
  return papaCharacters;
}

/** Papa reads no more than this much of the text to guess its line end. */
const GUESS_SAMPLE = 1_048_576;

/**
 * Papa's own guess (guessLineEndings), made once for the whole input so that the framer and
 * every block's parse use the same line end: the majority among the line ends outside
 * quoted text, '\n' when there is none or when a '\n' comes before any '\r'. When the
 * sample stops short of the end of the input, a quoted field still open and a '\r' whose
 * next character is unknown are left out, as they would be once the rest were seen.
 *
 * `settled`: the guess cannot change with more text, because a '\n' outside quotes came
 * before any '\r' (what follows cannot move either). A file of '\n' line ends is so known
 * from its first chunk, and its first rows need not wait for a MiB of text.
 */
function guessNewline(
  text: string,
  final: boolean,
): { newline: '\r\n' | '\n' | '\r'; settled: boolean } {
  let sample = text.slice(0, GUESS_SAMPLE);
  const partial = !final || sample.length < text.length;
  if (partial && sample.endsWith('\r')) sample = sample.slice(0, -1);
  sample = sample.replace(partial ? /"[^]*?(?:"|$)/g : /"[^]*?"/g, '');
  const pieces = sample.split('\r');
  const firstLf = sample.indexOf('\n');
  if (firstLf >= 0 && firstLf < (pieces[0] as string).length)
    return { newline: '\n', settled: true };
  if (pieces.length === 1) return { newline: '\n', settled: false };
  let crlf = 0;
  for (const piece of pieces) if (piece.charCodeAt(0) === LF) crlf++;
  return { newline: crlf >= pieces.length / 2 ? '\r\n' : '\r', settled: false };
}

/**
 * Turns chunks of CSV text into blocks of complete records. The line end is guessed from
 * the first MiB of text (or all of it, when shorter; or less, once the guess is settled),
 * then a framer cuts each chunk after its last complete record; what follows waits for the
 * next chunk. Every character therefore goes into exactly one block.
 */
class CsvBlocks {
  private framer: CsvFramer | undefined;
  newline: '\r\n' | '\n' | '\r' = '\n';
  private first = true;
  /** Text before the line end is known. */
  private undecided: string[] = [];
  private undecidedLength = 0;
  private nextLook = 0;
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
    // Guessing from less text than Papa would could tip its vote, unless the guess is
    // settled already; guessing from more would buffer a file without line ends for nothing.
    if (this.undecidedLength < GUESS_SAMPLE) {
      // Looked at again each time the text has doubled, so that the looks cost time
      // linear in it however small the chunks.
      if (this.undecidedLength < this.nextLook) return { block: '' };
      this.nextLook = 2 * this.undecidedLength;
      const text = this.undecided.join('');
      this.undecided = [text];
      const guess = guessNewline(text, false);
      return guess.settled ? this.decide(text, guess.newline) : { block: '' };
    }
    const text = this.undecided.join('');
    return this.decide(text, guessNewline(text, false).newline);
  }

  /** The text after the last complete record, at the end of the input. */
  end(): { block: string; overflow?: Overflow } {
    let framed: { block: string; overflow?: Overflow } = { block: '' };
    if (!this.framer) {
      const text = this.undecided.join('');
      framed = this.decide(text, guessNewline(text, true).newline);
    }
    if (framed.overflow) return framed;
    const rest = this.parts.join('');
    this.parts = [];
    this.partsLength = 0;
    return { block: framed.block + rest };
  }

  /** Frames the text kept so far (`text`, all of it) with the line end now known. */
  private decide(
    text: string,
    newline: '\r\n' | '\n' | '\r',
  ): { block: string; overflow?: Overflow } {
    this.undecided = [];
    this.newline = newline;
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
  /** Rows read so far, the header included; blank lines are not counted. */
  line = 0;
  private batch: string[][] = [];

  constructor(
    private readonly delimiter: string,
    private readonly batchSize: number,
  ) {}

  /** Parses complete records; returns the batches they filled. */
  take(block: string, newline: '\r\n' | '\n' | '\r'): Batch[] {
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
    const full: Batch[] = [];
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
        continue;
      }
      if (cells.length !== names.length) {
        throw new InputError(
          `row ${this.line} has ${cells.length} fields, the header has ${names.length}`,
        );
      }
      // Papa's own array of the record's fields becomes the row (see Batch).
      this.batch.push(cells);
      if (this.batch.length >= this.batchSize) {
        full.push({ names, cells: this.batch });
        this.batch = [];
      }
    }
    return full;
  }

  /** The rows of a batch not yet full, if any. */
  rest(): Batch | undefined {
    const rest = this.batch;
    this.batch = [];
    return this.names && rest.length > 0 ? { names: this.names, cells: rest } : undefined;
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
export async function* readCsv(
  source: AsyncIterable<string>,
  delimiter: string,
  batchSize: number,
  limits: Limits,
  signal: AbortSignal | undefined,
): AsyncGenerator<Batch> {
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
  if (rest) yield rest;
}
