import { asNumber, asText, fieldOf, type Row, type Value } from './values.ts';

// A small expression language for `derive`: numbers, 'strings', field names, + - * / %,
// comparisons, and a fixed set of functions. Definitions are parsed into a tree once and
// evaluated per row; nothing in a definition is ever handed to eval or Function.

type Expr =
  | { kind: 'literal'; value: Value }
  | { kind: 'field'; name: string }
  | { kind: 'unary'; op: '-' | 'not'; operand: Expr }
  | { kind: 'binary'; op: string; left: Expr; right: Expr }
  | { kind: 'call'; name: string; args: Expr[] };

/** The longest text one evaluation may produce, in characters. */
export const DEFAULT_MAX_VALUE_CHARS = 1_048_576;
/** The characters the expressions of one derive action may produce for one row, in all. */
export const DEFAULT_MAX_ROW_CHARS = 16_777_216;

export interface ExpressionLimits {
  readonly maxValueChars?: number;
  readonly maxRowChars?: number;
}

export interface ExpressionOptions extends ExpressionLimits {
  /** The derived field, named in the errors. */
  readonly field?: string;
}

/**
 * Characters produced so far for one row. The expressions of one derive action share it, so
 * many fields of a megabyte each cannot add up to gigabytes per row.
 */
export interface RowWork {
  chars: number;
}

/** A definition asked for more text than the limits allow. */
export class ExpressionLimitError extends Error {
  override readonly name = 'ExpressionLimitError';
}

interface Limits {
  readonly maxValueChars: number;
  readonly maxRowChars: number;
  readonly prefix: string;
}

interface Context {
  readonly row: Row;
  readonly work: RowWork;
  readonly limits: Limits;
}

const characters = (n: number): string => `${n.toLocaleString('en')} characters`;

/**
 * Accounts for a text of `length` characters about to be built (or just built, where its
 * length cannot be known beforehand) and refuses it when it exceeds a limit: text that
 * doubles per derived field would otherwise exhaust the heap within a few dozen fields.
 */
function produce(context: Context, length: number): void {
  const { limits, work } = context;
  if (length > limits.maxValueChars)
    throw new ExpressionLimitError(
      `${limits.prefix}the value would be longer than ${characters(limits.maxValueChars)}`,
    );
  work.chars += length;
  if (work.chars > limits.maxRowChars)
    throw new ExpressionLimitError(
      `${limits.prefix}the derive expressions of one row would produce more than ${characters(limits.maxRowChars)}`,
    );
}

/**
 * Builds a text from one argument. Its length is only known afterwards, so text that may
 * grow (upper('ß') is 'SS') is refused beforehand when already too long: that bounds what
 * is built to a small multiple of the limit. Text that can only shrink is always allowed in.
 */
function shaped(
  context: Context,
  x: Value | undefined,
  shape: (text: string) => string,
  mayGrow = false,
): Value {
  if (x === null || x === undefined) return null;
  const text = asText(x);
  if (mayGrow && text.length > context.limits.maxValueChars) produce(context, text.length);
  const out = shape(text);
  produce(context, out.length);
  return out;
}

type Fn = (args: Value[], context: Context) => Value;

const num = (v: Value | undefined): number | null =>
  v === undefined ? null : (asNumber(v) ?? null);

const FUNCTIONS: Readonly<Record<string, { arity: [number, number]; fn: Fn }>> = {
  round: {
    arity: [1, 2],
    fn: ([x, digits]) => {
      const n = num(x);
      if (n === null) return null;
      const factor = 10 ** (num(digits ?? 0) ?? 0);
      return Math.round(n * factor) / factor;
    },
  },
  floor: { arity: [1, 1], fn: ([x]) => (num(x) === null ? null : Math.floor(num(x) as number)) },
  ceil: { arity: [1, 1], fn: ([x]) => (num(x) === null ? null : Math.ceil(num(x) as number)) },
  abs: { arity: [1, 1], fn: ([x]) => (num(x) === null ? null : Math.abs(num(x) as number)) },
  upper: { arity: [1, 1], fn: ([x], c) => shaped(c, x, (t) => t.toUpperCase(), true) },
  lower: { arity: [1, 1], fn: ([x], c) => shaped(c, x, (t) => t.toLowerCase(), true) },
  trim: { arity: [1, 1], fn: ([x], c) => shaped(c, x, (t) => t.trim()) },
  length: { arity: [1, 1], fn: ([x]) => (x === null || x === undefined ? null : asText(x).length) },
  concat: {
    arity: [1, 32],
    fn: (args, c) => {
      const texts = args.map((a) => asText(a));
      let total = 0;
      for (const t of texts) total += t.length;
      produce(c, total);
      return texts.join('');
    },
  },
  substr: {
    arity: [2, 3],
    fn: ([x, start, count], c) => {
      const from = num(start ?? 0) ?? 0;
      const length = count === undefined ? undefined : (num(count) ?? 0);
      return shaped(c, x, (t) =>
        t.substring(from, length === undefined ? undefined : from + length),
      );
    },
  },
  coalesce: { arity: [1, 32], fn: (args) => args.find((a) => a !== null && a !== '') ?? null },
};

class Parser {
  private pos = 0;
  constructor(private readonly text: string) {}

  fail(message: string): never {
    throw new Error(`${message} at position ${this.pos + 1} of "${this.text}"`);
  }

  private skip(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos] as string)) this.pos++;
  }

  private peek(token: string): boolean {
    this.skip();
    return this.text.startsWith(token, this.pos);
  }

  private take(token: string): boolean {
    if (this.peek(token)) {
      this.pos += token.length;
      return true;
    }
    return false;
  }

  parse(): Expr {
    const expr = this.comparison();
    this.skip();
    if (this.pos < this.text.length) this.fail('unexpected text');
    return expr;
  }

  private comparison(): Expr {
    const left = this.additive();
    for (const op of ['==', '!=', '<=', '>=', '<', '>', '=']) {
      if (this.take(op))
        return { kind: 'binary', op: op === '=' ? '==' : op, left, right: this.additive() };
    }
    return left;
  }

  private additive(): Expr {
    let left = this.multiplicative();
    for (;;) {
      if (this.take('+')) left = { kind: 'binary', op: '+', left, right: this.multiplicative() };
      else if (this.take('-'))
        left = { kind: 'binary', op: '-', left, right: this.multiplicative() };
      else return left;
    }
  }

  private multiplicative(): Expr {
    let left = this.unary();
    for (;;) {
      if (this.take('*')) left = { kind: 'binary', op: '*', left, right: this.unary() };
      else if (this.take('/')) left = { kind: 'binary', op: '/', left, right: this.unary() };
      else if (this.take('%')) left = { kind: 'binary', op: '%', left, right: this.unary() };
      else return left;
    }
  }

  private unary(): Expr {
    if (this.take('-')) return { kind: 'unary', op: '-', operand: this.unary() };
    return this.primary();
  }

  private primary(): Expr {
    this.skip();
    const rest = this.text.slice(this.pos);
    if (this.take('(')) {
      const inner = this.comparison();
      if (!this.take(')')) this.fail('missing )');
      return inner;
    }
    const number = /^\d+(\.\d+)?([eE][+-]?\d+)?/.exec(rest);
    if (number) {
      this.pos += number[0].length;
      return { kind: 'literal', value: Number(number[0]) };
    }
    if (rest.startsWith("'") || rest.startsWith('"')) {
      const quote = rest[0] as string;
      let value = '';
      let i = 1;
      for (; i < rest.length; i++) {
        const c = rest[i] as string;
        if (c === quote) {
          if (rest[i + 1] === quote) {
            value += quote;
            i++;
          } else break;
        } else value += c;
      }
      if (i >= rest.length) this.fail('unterminated string');
      this.pos += i + 1;
      return { kind: 'literal', value };
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
    if (name) {
      this.pos += name[0].length;
      const word = name[0];
      if (word === 'null') return { kind: 'literal', value: null };
      if (word === 'true' || word === 'false') return { kind: 'literal', value: word === 'true' };
      if (this.take('(')) {
        const spec = Object.hasOwn(FUNCTIONS, word) ? FUNCTIONS[word] : undefined;
        if (!spec) this.fail(`unknown function ${word}`);
        const args: Expr[] = [];
        if (!this.take(')')) {
          do args.push(this.comparison());
          while (this.take(','));
          if (!this.take(')')) this.fail('missing )');
        }
        if (args.length < spec.arity[0] || args.length > spec.arity[1]) {
          this.fail(
            `${word} takes ${spec.arity[0]}${spec.arity[1] > spec.arity[0] ? ` to ${spec.arity[1]}` : ''} arguments`,
          );
        }
        return { kind: 'call', name: word, args };
      }
      return { kind: 'field', name: word };
    }
    // Field names that are not identifiers are written in backticks: `unit price`.
    if (rest.startsWith('`')) {
      const end = rest.indexOf('`', 1);
      if (end < 0) this.fail('unterminated `');
      this.pos += end + 1;
      return { kind: 'field', name: rest.slice(1, end) };
    }
    this.fail(rest ? 'unexpected character' : 'unexpected end');
  }
}

function compareValues(op: string, a: Value, b: Value): boolean {
  const x = asNumber(a);
  const y = asNumber(b);
  const c = x !== undefined && y !== undefined ? x - y : asText(a).localeCompare(asText(b));
  switch (op) {
    case '==':
      return x !== undefined && y !== undefined ? x === y : asText(a) === asText(b);
    case '!=':
      return x !== undefined && y !== undefined ? x !== y : asText(a) !== asText(b);
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    default:
      return c >= 0;
  }
}

function evaluate(expr: Expr, context: Context): Value {
  switch (expr.kind) {
    case 'literal':
      return expr.value;
    case 'field':
      return fieldOf(context.row, expr.name);
    case 'unary': {
      const n = num(evaluate(expr.operand, context));
      return n === null ? null : -n;
    }
    case 'call':
      return (FUNCTIONS[expr.name] as { fn: Fn }).fn(
        expr.args.map((a) => evaluate(a, context)),
        context,
      );
    case 'binary': {
      const a = evaluate(expr.left, context);
      const b = evaluate(expr.right, context);
      if (['==', '!=', '<', '<=', '>', '>='].includes(expr.op)) return compareValues(expr.op, a, b);
      if (a === null || b === null) return null;
      const x = asNumber(a);
      const y = asNumber(b);
      if (expr.op === '+' && (x === undefined || y === undefined)) {
        const left = asText(a);
        const right = asText(b);
        produce(context, left.length + right.length);
        return left + right;
      }
      if (x === undefined || y === undefined) return null;
      switch (expr.op) {
        case '+':
          return x + y;
        case '-':
          return x - y;
        case '*':
          return x * y;
        case '/':
          return y === 0 ? null : x / y;
        default:
          return y === 0 ? null : x % y;
      }
    }
  }
}

/**
 * Parses an expression once; the result evaluates it against a row. Callers that evaluate
 * several expressions for one row pass the same `work` to each, so that the row's budget
 * covers them all; without it, each evaluation has a budget of its own.
 */
export function compileExpression(
  text: string,
  options: ExpressionOptions = {},
): (row: Row, work?: RowWork) => Value {
  const tree = new Parser(text).parse();
  const limits: Limits = {
    maxValueChars: options.maxValueChars ?? DEFAULT_MAX_VALUE_CHARS,
    maxRowChars: options.maxRowChars ?? DEFAULT_MAX_ROW_CHARS,
    prefix: options.field === undefined ? '' : `derive ${options.field}: `,
  };
  return (row, work = { chars: 0 }) => evaluate(tree, { row, work, limits });
}
