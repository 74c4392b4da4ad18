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

  it('reads a list written with spaces as well', () => {
    expect(mergedUserLists('[3, 17, 42]', '[20]')).toBe('[3,17,20,42]');
  });

  it('keeps a long list sorted and distinct whatever order the ids come in', () => {
    let list = '[]';
    const ids = Array.from({ length: 500 }, (_, i) => (i * 7919) % 1000);
    // 0 and ids of other lengths too.
    ids.push(0, 5, 123456, 99);
    for (const id of [...ids, ...ids.slice(0, 50)]) list = mergedUserLists(list, `[${id}]`);
    expect(JSON.parse(list)).toEqual([...new Set(ids)].sort((a, b) => a - b));
  });

  it('gives the sorted union of any two sorted lists', () => {
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const list = (size: number) =>
      [...new Set(Array.from({ length: size }, () => next(300)))].sort((a, b) => a - b);
    for (let round = 0; round < 300; round++) {
      const a = list(next(40));
      const b = list(next(6));
      const expected = [...new Set([...a, ...b])].sort((x, y) => x - y);
      expect(mergedUserLists(JSON.stringify(a), JSON.stringify(b))).toBe(JSON.stringify(expected));
    }
  });
});
