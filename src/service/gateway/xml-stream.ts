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

export class XmlStreamError extends Error {
  override readonly name = 'XmlStreamError';
}

/** A streaming reader of one XML answer: `write` text chunks, then `close` for its tree. */
export class XmlTreeStream {
  private readonly parser = new SaxesParser({ xmlns: false });
  private readonly stack: Open[] = [];
  private root: { name: string; value: Loose } | undefined;
  private failure: Error | undefined = undefined;

  constructor(private readonly records?: RecordStream) {
    const parser = this.parser;
    parser.on('opentag', (tag) => {
      const node: LooseObject = {};
      // A NULL cell is marked as the kit's XML reader marks it.
      if (tag.attributes.isnull === 'true') node['@_isnull'] = 'true';
      const parent = this.stack.at(-1);
      if (parent) parent.children++;
      this.stack.push({ name: tag.name, node, text: '', children: 0 });
    });
    const onText = (text: string) => {
      const open = this.stack.at(-1);
      if (open) open.text += text;
    };
    parser.on('text', onText);
    parser.on('cdata', onText);
    parser.on('closetag', () => {
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

  /** Throws the parser's first complaint, once it made one. */
  private check(): void {
    if (this.failure) throw new XmlStreamError(this.failure.message);
  }

  write(chunk: string): void {
    this.check();
    this.parser.write(chunk);
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
