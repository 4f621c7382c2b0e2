import { SaxesParser } from 'saxes';
import { typedAnswer, type TreeObject } from '../../kit/tree.ts';

// An upstream's XML read as it arrives (saxes, a streaming parser), into the loose shape the
// kit's readers type by the vocabulary: so an answer is never held whole as text, and a
// day's requests can be handed on one by one and dropped (a 100,000-request day of a
// vendor that ignores pagesize) instead of being kept as one tree.

type Loose = string | LooseObject;
interface LooseObject {
  [name: string]: Loose | Loose[];
}

interface Open {
  readonly name: string;
  readonly node: LooseObject;
  text: string;
  children: number;
}

/** Records under `parent/child` are handed to `onRecord` and left out of the tree. */
export interface RecordStream {
  readonly parent: string;
  readonly child: string;
  readonly onRecord: (record: Readonly<Record<string, unknown>>) => void;
}

/** More characters than the markup of one tag: what a value still open may hold beside it. */
const MARKUP_SLACK = 64 * 1024;

export class XmlStreamError extends Error {
  override readonly name = 'XmlStreamError';
}

/**
 * One value (an element's text or an attribute) ran past the bound for a single value: the
 * read stops there, before the parser holds more of it (saxes keeps a text whole until the
 * tag after it), so that one vendor's giant value costs the gateway at most the bound.
 */
export class XmlValueTooLargeError extends Error {
  override readonly name = 'XmlValueTooLargeError';
  constructor(
    /** The element the value belongs to. */
    readonly element: string,
    /** Characters it is known to hold at least (read so far, or the bound's one more). */
    readonly characters: number,
    readonly boundCharacters: number,
  ) {
    super(`a value of <${element}> holds at least ${characters} characters`);
  }
}

/** A streaming reader of one XML answer: `write` text chunks, then `close` for its tree. */
export class XmlTreeStream {
  private readonly parser = new SaxesParser({ xmlns: false });
  private readonly stack: Open[] = [];
  private root: { name: string; value: Loose } | undefined;
  private failure: Error | undefined = undefined;
  /** Where in the text the parser last finished a piece (a tag, a text): what follows is pending. */
  private settledAt = 0;
  /**
   * Characters written so far. After a write saxes's `position` counts the chunk twice (it
   * adds the chunk's length to an index left at its end); inside its events it is exact.
   */
  private written = 0;

  constructor(
    private readonly records?: RecordStream,
    /** Characters one value may have; past them the read ends (XmlValueTooLargeError). */
    private readonly maxValueChars = Number.POSITIVE_INFINITY,
  ) {
    const parser = this.parser;
    const settled = () => {
      this.settledAt = parser.position;
    };
    parser.on('opentag', (tag) => {
      settled();
      for (const [name, value] of Object.entries(tag.attributes))
        if (value.length > maxValueChars)
          this.failure ??= new XmlValueTooLargeError(
            `${tag.name} @${name}`,
            value.length,
            maxValueChars,
          );
      const node: LooseObject = {};
      // A NULL cell is marked as the kit's XML reader marks it.
      if (tag.attributes.isnull === 'true') node['@_isnull'] = 'true';
      const parent = this.stack.at(-1);
      if (parent) parent.children++;
      this.stack.push({ name: tag.name, node, text: '', children: 0 });
    });
    const onText = (text: string) => {
      settled();
      const open = this.stack.at(-1);
      if (!open) return;
      // Texts of one element add up (a text, a CDATA section, a text again).
      if (open.text.length + text.length > maxValueChars)
        this.failure ??= new XmlValueTooLargeError(
          open.name,
          open.text.length + text.length,
          maxValueChars,
        );
      else open.text += text;
    };
    parser.on('text', onText);
    parser.on('cdata', onText);
    // A comment or an instruction is a piece of its own too (a vendor may pad with comments).
    parser.on('comment', settled);
    parser.on('processinginstruction', settled);
    parser.on('doctype', settled);
    parser.on('closetag', () => {
      settled();
      const open = this.stack.pop();
      if (!open) return;
      const value = this.valueOf(open);
      const parent = this.stack.at(-1);
      if (!parent) {
        this.root = { name: open.name, value };
        return;
      }
      if (
        this.records &&
        this.stack.length === 1 &&
        parent.name === this.records.parent &&
        open.name === this.records.child
      ) {
        this.records.onRecord(typeof value === 'string' ? {} : value);
        return;
      }
      const before = parent.node[open.name];
      if (before === undefined) parent.node[open.name] = value;
      else if (Array.isArray(before)) before.push(value);
      else parent.node[open.name] = [before, value];
    });
    parser.on('error', (error) => {
      this.failure ??= error;
    });
  }

  private valueOf(open: Open): Loose {
    const attributes = Object.keys(open.node).length;
    if (open.children === 0 && attributes === 0) return open.text;
    // Mixed content keeps its text as the kit's reader does; blanks between elements do not.
    if (open.text.trim() !== '') open.node['#text'] = open.text;
    return open.node;
  }

  /** Throws the parser's first complaint (or the bound's), once there is one. */
  private check(): void {
    if (this.failure instanceof XmlValueTooLargeError) throw this.failure;
    if (this.failure) throw new XmlStreamError(this.failure.message);
  }

  write(chunk: string): void {
    this.check();
    this.written += chunk.length;
    this.parser.write(chunk);
    // What the parser holds since its last piece is one value still open (a text, or a tag
    // and its attributes): past the bound, it is stopped here rather than read to its end.
    // The pending characters may hold a little markup too (the start of the tag after the
    // text): beyond the bound by more than any tag's markup, the value itself is past it.
    const pending = this.written - this.settledAt;
    if (pending > this.maxValueChars + MARKUP_SLACK)
      this.failure ??= new XmlValueTooLargeError(
        this.stack.at(-1)?.name ?? 'the root',
        this.maxValueChars + 1,
        this.maxValueChars,
      );
    this.check();
  }

  /** Ends the answer and gives its tree (typed by the kit's vocabulary). */
  close(): TreeObject {
    this.parser.close();
    this.check();
    if (!this.root) throw new XmlStreamError('no element');
    return typedAnswer({ [this.root.name]: this.root.value });
  }
}
