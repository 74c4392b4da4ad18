import { describe, expect, it } from 'vitest';
import { formatDateTime } from './format';

describe('formatDateTime', () => {
  it('shows five past midnight as 00:05 on a 24-hour clock, in either language', () => {
    const midnight = new Date(2026, 0, 1, 0, 5).toISOString();
    expect(formatDateTime(midnight, 'en-US')).toContain('00:05');
    expect(formatDateTime(midnight, 'zh-CN')).toContain('00:05');
    expect(formatDateTime(midnight, 'en-US')).not.toContain('24:05');
  });
});
