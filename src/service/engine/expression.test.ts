import { describe, expect, it } from 'vitest';
import { compileExpression } from './expression.ts';

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
