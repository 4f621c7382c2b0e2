import { describe, expect, it } from 'vitest';
import {
  compileExpression,
  DEFAULT_MAX_ROW_CHARS,
  DEFAULT_MAX_VALUE_CHARS,
  ExpressionLimitError,
} from './expression.ts';
import type { Row } from './values.ts';

describe('derive expressions', () => {
  const row = { amount: '12.5', quantity: 4, name: 'ada', empty: null, 'unit price': '2' };

  it('computes arithmetic with precedence and parentheses', () => {
    expect(compileExpression('amount * quantity + 1')(row)).toBe(51);
    expect(compileExpression('(amount + 0.5) * 2')(row)).toBe(26);
    expect(compileExpression('-quantity % 3')(row)).toBe(-1);
    expect(compileExpression('`unit price` * 3')(row)).toBe(6);
    expect(compileExpression('quantity / 0')(row)).toBeNull();
  });

  it('calls the fixed functions and concatenates text', () => {
    expect(compileExpression('round(amount / 3, 2)')(row)).toBe(4.17);
    expect(compileExpression("upper(name) + '-' + quantity")(row)).toBe('ADA-4');
    expect(compileExpression("concat(name, ':', substr('abcdef', 1, 3))")(row)).toBe('ada:bcd');
    expect(compileExpression("coalesce(empty, 'none')")(row)).toBe('none');
    expect(compileExpression('length(name) >= 3')(row)).toBe(true);
  });

  it('propagates null through arithmetic', () => {
    expect(compileExpression('empty * 2')(row)).toBeNull();
    expect(compileExpression('missing + 1')(row)).toBeNull();
  });

  it('refuses anything outside the language with the position', () => {
    expect(() => compileExpression('process.exit(1)')).toThrow(
      /unexpected text|unexpected character/,
    );
    expect(() => compileExpression('constructor("return 1")()')).toThrow(
      /unknown function constructor/,
    );
    expect(() => compileExpression('amount *')).toThrow(/unexpected end/);
    expect(() => compileExpression("'open")).toThrow(/unterminated string/);
    expect(() => compileExpression('round()')).toThrow(/round takes 1 to 2 arguments/);
  });
});

describe('derive bounds', () => {
  it('has limits of 1,048,576 characters per value and 16 MiB per row by default', () => {
    expect(DEFAULT_MAX_VALUE_CHARS).toBe(1_048_576);
    expect(DEFAULT_MAX_ROW_CHARS).toBe(16_777_216);
  });

  it('refuses a value longer than the limit before building it', () => {
    const twice = compileExpression('concat(x, x)', { maxValueChars: 5 });
    expect(twice({ x: 'ab' })).toBe('abab');
    expect(() => twice({ x: 'abc' })).toThrow(ExpressionLimitError);
    expect(() => twice({ x: 'abc' })).toThrow('the value would be longer than 5 characters');
    const plus = compileExpression("x + '!'", { maxValueChars: 5, field: 'shout' });
    expect(() => plus({ x: 'hello' })).toThrow(
      'derive shout: the value would be longer than 5 characters',
    );
    expect(() => compileExpression('upper(x)', { maxValueChars: 5 })({ x: 'abcdef' })).toThrow(
      'longer than 5 characters',
    );
    // Taking a short part of a long value is fine.
    expect(compileExpression('substr(x, 0, 2)', { maxValueChars: 5 })({ x: 'abcdef' })).toBe('ab');
  });

  it('counts what the expressions of one row produce against a shared budget', () => {
    const limits = { maxValueChars: 100, maxRowChars: 9 };
    const a = compileExpression('concat(x, x)', { ...limits, field: 'a' });
    const b = compileExpression('concat(x, x, x)', { ...limits, field: 'b' });
    const work = { chars: 0 };
    expect(a({ x: 'ab' }, work)).toBe('abab');
    expect(() => b({ x: 'ab' }, work)).toThrow(
      'derive b: the derive expressions of one row would produce more than 9 characters',
    );
    // Without a shared budget, each evaluation has its own.
    expect(b({ x: 'ab' })).toBe('ababab');
  });

  it('reads only the row’s own fields, never Object.prototype’s', () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty'])
      expect(compileExpression(name)({ a: '1' })).toBeNull();
    expect(compileExpression('concat(constructor, toString)')({})).toBe('');
    const own: Row = JSON.parse('{"__proto__":"p","constructor":"c"}') as Row;
    expect(compileExpression("concat(__proto__, '-', constructor)")(own)).toBe('p-c');
  });
});
