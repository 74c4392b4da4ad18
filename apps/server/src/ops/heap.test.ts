import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, limitHeapGrowth } from './heap';

describe('limitHeapGrowth', () => {
  it('sets the heap growing factor when the command line sets none', () => {
    const set: string[] = [];
    expect(limitHeapGrowth(['--enable-source-maps'], (f) => set.push(f))).toBe(
      `--heap-growing-percent=${HEAP_GROWING_PERCENT}`,
    );
    expect(set).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
  });

  it('keeps the command line’s own, in either form', () => {
    const set: string[] = [];
    expect(limitHeapGrowth(['--heap-growing-percent=0'], (f) => set.push(f))).toBeNull();
    expect(limitHeapGrowth(['--heap-growing-percent', '50'], (f) => set.push(f))).toBeNull();
    expect(set).toEqual([]);
  });
});
