import { describe, expect, it } from 'vitest';
import { formatMoney } from './money';

describe('formatMoney', () => {
  it('shows cents from one unit up, three significant digits below, with the currency', () => {
    expect(formatMoney(1.5, 'USD', 'en-US')).toBe('$1.50');
    expect(formatMoney(3.038971, 'USD', 'en-US')).toBe('$3.04');
    expect(formatMoney(1234.5678, 'USD', 'en-US')).toBe('$1,234.57');
    expect(formatMoney(0, 'USD', 'en-US')).toBe('$0.00');
    expect(formatMoney(0.5, 'USD', 'en-US')).toBe('$0.50');
    expect(formatMoney(0.038971, 'USD', 'en-US')).toBe('$0.039');
    expect(formatMoney(0.000016, 'USD', 'en-US')).toBe('$0.000016');
    expect(formatMoney(0.0000001, 'USD', 'en-US')).toBe('$0.00');
    expect(formatMoney(2, 'EUR', 'en-US')).toBe('€2.00');
    expect(formatMoney(3.038971, 'USD', 'zh-CN')).toBe('US$3.04');
  });

  it('names an unknown currency after the number', () => {
    expect(formatMoney(3.038971, 'X1', 'en-US')).toBe('3.04 X1');
  });
});
