import { describe, expect, it } from 'vitest';
import { numberProblem } from './number-check';

describe('numberProblem', () => {
  it('accepts values inside the rule', () => {
    expect(numberProblem(1, { min: 1, max: 10, integer: true })).toBeNull();
    expect(numberProblem(-1, { min: -1 })).toBeNull();
    expect(numberProblem(2.5, { min: 0 })).toBeNull();
    expect(numberProblem(Number.NaN, { optional: true })).toBeNull();
  });

  it('refuses, never corrects: empty, decimals, below min, above max', () => {
    expect(numberProblem(Number.NaN, { min: 1 })).toEqual({ key: 'schema.number' });
    expect(numberProblem(Number.POSITIVE_INFINITY, {})).toEqual({ key: 'schema.number' });
    expect(numberProblem(1.5, { integer: true })).toEqual({ key: 'schema.integer' });
    expect(numberProblem(-5, { min: 0 })).toEqual({ key: 'schema.min', values: { min: 0 } });
    expect(numberProblem(0, { min: 1 })).toEqual({ key: 'schema.min', values: { min: 1 } });
    expect(numberProblem(70000, { min: 1, max: 65535 })).toEqual({
      key: 'schema.max',
      values: { max: 65535 },
    });
  });
});
