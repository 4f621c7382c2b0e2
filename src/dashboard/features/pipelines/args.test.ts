import { describe, expect, it } from 'vitest';
import type { PipelineArg } from '../../../kit/index.ts';
import { argProblem, argsToSend } from './args.ts';

const minAmount: PipelineArg = { name: 'minAmount', value: '10', type: 'integer', required: true };
const region: PipelineArg = { name: 'region', value: 'EU', choices: ['EU', 'US', 'APAC'] };
const owner: PipelineArg = { name: 'owner', value: '', required: true };

describe('argProblem', () => {
  it('refuses a value of the wrong type, naming the type', () => {
    expect(argProblem(minAmount, 'abc')).toEqual({ kind: 'integer' });
    expect(argProblem(minAmount, '250')).toBeUndefined();
    expect(argProblem({ name: 'r', value: '', type: 'number' }, '1.5e3')).toBeUndefined();
    expect(argProblem({ name: 'r', value: '', type: 'number' }, '1,5')).toEqual({
      kind: 'number',
    });
    expect(argProblem({ name: 'f', value: 'false', type: 'boolean' }, 'yes')).toEqual({
      kind: 'boolean',
    });
    expect(argProblem({ name: 'd', value: '', type: 'date' }, '2026-02-30')).toEqual({
      kind: 'date',
    });
    expect(argProblem({ name: 'd', value: '', type: 'date' }, '2028-02-29')).toBeUndefined();
  });

  it('refuses a value outside the choices or the pattern', () => {
    expect(argProblem(region, 'XX')).toEqual({ kind: 'choices', choices: 'EU, US, APAC' });
    expect(argProblem(region, 'US')).toBeUndefined();
    const code: PipelineArg = { name: 'code', value: '', pattern: '[A-Z]{3}' };
    expect(argProblem(code, 'ABCD')).toEqual({ kind: 'pattern', pattern: '[A-Z]{3}' });
    expect(argProblem(code, 'ABC')).toBeUndefined();
    // A pattern this browser cannot compile is left to the service.
    expect(argProblem({ name: 'odd', value: '', pattern: '(' }, 'x')).toBeUndefined();
  });

  it('takes the default for an empty value, and refuses only a required Arg with none', () => {
    expect(argProblem(minAmount, '')).toBeUndefined();
    expect(argProblem(owner, '  ')).toEqual({ kind: 'required' });
    expect(argProblem({ name: 'note', value: '' }, '')).toBeUndefined();
  });
});

describe('argsToSend', () => {
  it('sends what was typed, trimmed, and leaves empty Args to the service’s defaults', () => {
    expect(argsToSend([minAmount, region, owner], { minAmount: ' 250 ', region: '' })).toEqual({
      minAmount: '250',
    });
  });
});
