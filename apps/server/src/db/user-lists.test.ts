import { describe, expect, it } from 'vitest';
import { mergedUserLists } from './user-lists';

describe('mergedUserLists', () => {
  it('puts a new id in its place and keeps a list that already has every id as it is', () => {
    expect(mergedUserLists('[3,17,42]', '[20]')).toBe('[3,17,20,42]');
    expect(mergedUserLists('[3,17,42]', '[1]')).toBe('[1,3,17,42]');
    expect(mergedUserLists('[3,17,42]', '[50]')).toBe('[3,17,42,50]');
    const stored = '[3,17,42]';
    expect(mergedUserLists(stored, '[17]')).toBe(stored);
    expect(mergedUserLists(stored, '[3,42]')).toBe(stored);
  });

  it('merges several ids, each once, and takes either list when the other is empty', () => {
    expect(mergedUserLists('[3,17,42]', '[1,17,20,99]')).toBe('[1,3,17,20,42,99]');
    expect(mergedUserLists('[]', '[5,9]')).toBe('[5,9]');
    expect(mergedUserLists('[5,9]', '[]')).toBe('[5,9]');
    expect(mergedUserLists(null, '[5]')).toBe('[5]');
    expect(mergedUserLists('[5]', null)).toBe('[5]');
  });

  it('keeps a long list sorted and distinct whatever order the ids come in', () => {
    let list = '[]';
    const ids = Array.from({ length: 500 }, (_, i) => (i * 7919) % 1000);
    for (const id of [...ids, ...ids.slice(0, 50)]) list = mergedUserLists(list, `[${id}]`);
    expect(JSON.parse(list)).toEqual([...new Set(ids)].sort((a, b) => a - b));
  });
});
