import { describe, expect, it } from 'vitest';
import { StatsBucketsWriter, UserIdCollector, compareCodePoints, jsonArray } from './stats-json';

describe('UserIdCollector', () => {
  it('merges stored lists and single ids into one ascending list without repeats', () => {
    const ids = new UserIdCollector();
    expect(ids.json()).toBe('[]');
    ids.addJson('[3,17,42]');
    ids.addJson('[]');
    ids.addJson('[1,17,1000000]');
    ids.add(42);
    ids.add(0);
    expect(ids.json()).toBe('[0,1,3,17,42,1000000]');
    ids.clear();
    ids.add(7);
    expect(ids.json()).toBe('[7]');
  });

  it('keeps ids past 32 bits and grows past its first buffers', () => {
    const ids = new UserIdCollector();
    ids.addJson(`[${2 ** 31 + 5},${2 ** 40}]`);
    ids.add(2 ** 31 + 5);
    expect(JSON.parse(ids.json())).toEqual([2 ** 31 + 5, 2 ** 40]);
    ids.clear();
    const many = Array.from({ length: 5000 }, (_, i) => 5000 - i);
    ids.addJson(JSON.stringify(many));
    ids.addJson(JSON.stringify(many.slice(0, 100)));
    expect(JSON.parse(ids.json())).toEqual([...many].reverse());
  });
});

describe('compareCodePoints', () => {
  it('orders as UTF-8 bytes do: characters past U+FFFF after U+E000–U+FFFF', () => {
    const words = ['b', 'a', '\u{1F600}', '\uE000', '\uFFFD', 'ab', 'é', ''];
    const bytes = (s: string) => [...Buffer.from(s, 'utf8')];
    const byBytes = [...words].sort((x, y) => {
      const [a, b] = [bytes(x), bytes(y)];
      for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
      return a.length - b.length;
    });
    expect([...words].sort(compareCodePoints)).toEqual(byBytes);
    expect(byBytes.indexOf('\uE000')).toBeLessThan(byBytes.indexOf('\u{1F600}'));
  });
});

describe('StatsBucketsWriter', () => {
  const writer = () =>
    new StatsBucketsWriter(
      3600,
      (a, b) => `,"a":${JSON.stringify(a)},"b":${JSON.stringify(b)}},"count":`,
      (g) => `"sum":${g.sum1}`,
    );
  const HOUR = 3_600_000;

  it('writes buckets ascending, keys in order within each, lists merged unless one stands alone', () => {
    const w = writer();
    const add = (ms: number, a: string, b: string, list?: string, user?: number) => {
      const g = w.at(ms, a, b);
      g.count += 1;
      g.sum1 += 1.5;
      if (list !== undefined) g.lists.push(list);
      if (user !== undefined) g.users.push(user);
    };
    add(0, 'y', 'GET', '[9,3]'); // one list alone: taken as it is
    add(1000, 'x', 'POST', undefined, 5);
    add(2000, 'x', 'GET', '[1,4]');
    add(1800_000, 'x', 'GET', '[4,8]');
    add(HOUR, 'x', 'GET', undefined, 2);
    add(HOUR + 5, 'x', 'GET', undefined, 2);
    const out = JSON.parse(jsonArray([w.done()])) as unknown[];
    expect(out).toEqual([
      {
        _id: { start_time: '1970-01-01T00:00:00.000Z', a: 'x', b: 'GET' },
        count: 2,
        user_ids: [1, 4, 8],
        sum: 3,
      },
      {
        _id: { start_time: '1970-01-01T00:00:00.000Z', a: 'x', b: 'POST' },
        count: 1,
        user_ids: [5],
        sum: 1.5,
      },
      {
        _id: { start_time: '1970-01-01T00:00:00.000Z', a: 'y', b: 'GET' },
        count: 1,
        user_ids: [9, 3],
        sum: 1.5,
      },
      { _id: { start_time: '1970-01-01T01:00:00.000Z', a: 'x', b: 'GET' }, count: 2, user_ids: [2], sum: 3 },
    ]);
  });

  it('refuses rows that go back to an earlier bucket', () => {
    const w = writer();
    w.at(HOUR, 'x', 'GET');
    expect(() => w.at(0, 'x', 'GET')).toThrow(/order/);
  });

  it('writes nothing for no rows', () => {
    expect(jsonArray([writer().done(), '', writer().done()])).toBe('[]');
  });
});
