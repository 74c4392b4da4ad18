/**
 * Statistics answers written as JSON text: no object per bucket, no serializer pass over tens of thousands of them.
 */

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Code point order (that of UTF-8 bytes, as the databases order keys): UTF-16 order except that surrogate pairs
 * (U+10000 and up) sort after U+E000–U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800) x += x >= 0xe000 ? -0x800 : 0x2000;
    if (y >= 0xd800) y += y >= 0xe000 ? -0x800 : 0x2000;
    return x - y;
  }
  return a.length - b.length;
}

/**
 * User ids gathered from stored lists (JSON arrays) and single ids,
 * written back as one JSON array, ascending, without repeats. Its buffers grow as needed and are reused from one
 * group to the next: no array or string per id.
 */
export class UserIdCollector {
  private ids = new Float64Array(1024);
  private length = 0;
  private out = Buffer.allocUnsafe(4096);

  clear(): void {
    this.length = 0;
  }

  add(id: number): void {
    if (this.length === this.ids.length) {
      const grown = new Float64Array(this.ids.length * 2);
      grown.set(this.ids);
      this.ids = grown;
    }
    this.ids[this.length++] = id;
  }

  /** Adds the ids of stored lists (digits make an id; anything else separates them). */
  addJson(lists: string): void {
    let n = 0;
    let digits = false;
    for (let i = 0; i < lists.length; i++) {
      const c = lists.charCodeAt(i);
      if (c >= 48 && c <= 57) {
        n = n * 10 + (c - 48);
        digits = true;
      } else if (digits) {
        this.add(n);
        n = 0;
        digits = false;
      }
    }
    if (digits) this.add(n);
  }

  /** The ids added since clear(), as a JSON array: ascending, without repeats. */
  json(): string {
    if (this.length === 0) return '[]';
    const sorted = this.ids.subarray(0, this.length).sort();
    // At most 16 digits and a comma per id (integers below 2^53), and the brackets.
    if (this.out.length < this.length * 17 + 2) this.out = Buffer.allocUnsafe(this.length * 17 + 2);
    const out = this.out;
    let o = 0;
    out[o++] = 91; // [
    for (let i = 0; i < sorted.length; i++) {
      let v = sorted[i]!;
      if (i > 0) {
        if (v === sorted[i - 1]) continue;
        out[o++] = 44; // ,
      }
      const from = o;
      do {
        out[o++] = 48 + (v % 10);
        v = Math.floor(v / 10);
      } while (v > 0);
      for (let x = from, y = o - 1; x < y; x++, y--) {
        const t = out[x]!;
        out[x] = out[y]!;
        out[y] = t;
      }
    }
    out[o++] = 93; // ]
    return out.toString('latin1', 0, o);
  }
}

/** One group (bucket of the granularity, and key) being summed. Kept per key and reused from bucket to bucket. */
export interface StatsGroup {
  /** Start (epoch ms) of the bucket the group is summing now. */
  bucketMs: number;
  /** The key, in the order groups of a bucket come out (code point order of `first`, then `second`). */
  first: string;
  second: string;
  /** The object's JSON from the key on: `","route_path":"/api/conv","method":"GET"},"count":`. */
  head: string;
  count: number;
  sum1: number;
  sum2: number;
  /** Stored user lists of the group's rollup rows: with one alone, it is the answer's as is. */
  lists: string[];
  /** Users of the group's log rows. */
  users: number[];
}

function compareGroups(a: StatsGroup, b: StatsGroup): number {
  return compareCodePoints(a.first, b.first) || compareCodePoints(a.second, b.second);
}

/**
 * Statistics buckets as JSON objects, written as rows arrive in ascending bucket order: per bucket of the
 * granularity (floored to a multiple of it since the UTC epoch) and key, the count, two sums and the distinct
 * users; groups of a bucket in key order. `head` writes a key's part of the object, `tail` the fields after
 * `user_ids` from the sums.
 */
export class StatsBucketsWriter {
  private readonly size: number;
  private readonly keys = new Map<string, Map<string, StatsGroup>>();
  private open: StatsGroup[] = [];
  private bucketMs = Number.NEGATIVE_INFINITY;
  private bucketHead = '';
  private readonly objects: string[] = [];
  private readonly ids = new UserIdCollector();

  constructor(
    granularity: number,
    private readonly head: (first: string, second: string) => string,
    private readonly tail: (g: StatsGroup) => string,
  ) {
    this.size = granularity * 1000;
  }

  /** The group of the bucket holding `ms` (epoch ms, never below the previous call's bucket) and key. */
  at(ms: number, first: string, second: string): StatsGroup {
    const startMs = ms - (((ms % this.size) + this.size) % this.size);
    if (startMs !== this.bucketMs) {
      if (startMs < this.bucketMs) throw new Error('statistics rows out of bucket order');
      this.flush();
      this.bucketMs = startMs;
      this.bucketHead = `{"_id":{"start_time":"${iso(startMs)}"`;
    }
    let byFirst = this.keys.get(first);
    if (!byFirst) {
      byFirst = new Map();
      this.keys.set(first, byFirst);
    }
    let group = byFirst.get(second);
    if (!group) {
      group = {
        bucketMs: Number.NaN,
        first,
        second,
        head: this.head(first, second),
        count: 0,
        sum1: 0,
        sum2: 0,
        lists: [],
        users: [],
      };
      byFirst.set(second, group);
    }
    if (group.bucketMs !== startMs) {
      group.bucketMs = startMs;
      this.open.push(group);
    }
    return group;
  }

  private flush(): void {
    if (this.open.length > 1) this.open.sort(compareGroups);
    for (const g of this.open) {
      let users: string;
      if (g.lists.length === 1 && g.users.length === 0) users = g.lists[0]!;
      else {
        this.ids.clear();
        for (const list of g.lists) this.ids.addJson(list);
        for (const id of g.users) this.ids.add(id);
        users = this.ids.json();
      }
      this.objects.push(`${this.bucketHead}${g.head}${g.count},"user_ids":${users},${this.tail(g)}}`);
      g.count = 0;
      g.sum1 = 0;
      g.sum2 = 0;
      g.lists.length = 0;
      g.users.length = 0;
    }
    this.open = [];
  }

  /** The objects written, joined by `,` (no brackets; empty when none). */
  done(): string {
    this.flush();
    return this.objects.join(',');
  }
}

/** A JSON array of the given runs of objects (each joined by `,`; empty ones skipped). */
export function jsonArray(runs: readonly string[]): string {
  return `[${runs.filter((run) => run !== '').join(',')}]`;
}
