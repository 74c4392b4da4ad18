import { describe, expect, it } from 'vitest';
import { formatMoney } from './money';

describe('formatMoney', () => {
  it('shows at least 2 and at most 6 decimals with the currency', () => {
    expect(formatMoney(1.5, 'USD', 'en-US')).toBe('$1.50');
    expect(formatMoney(0.000016, 'USD', 'en-US')).toBe('$0.000016');
    expect(formatMoney(2, 'EUR', 'en-US')).toBe('€2.00');
  });
});
