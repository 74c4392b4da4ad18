import { describe, expect, it } from 'vitest';
import { runBulk } from './bulk';

describe('runBulk', () => {
  it('runs every item with bounded concurrency and reports progress and failures', async () => {
    let inFlight = 0;
    let peak = 0;
    const progress: number[] = [];
    const result = await runBulk(
      [1, 2, 3, 4, 5, 6, 7],
      async (n) => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight -= 1;
        if (n % 3 === 0) throw new Error(`bad ${n}`);
      },
      { concurrency: 3, onProgress: (finished) => progress.push(finished) },
    );
    expect(peak).toBeLessThanOrEqual(3);
    expect(result.done.sort()).toEqual([1, 2, 4, 5, 7]);
    expect(result.failed.map((f) => f.item).sort()).toEqual([3, 6]);
    expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('does nothing for no items', async () => {
    expect(await runBulk([], () => Promise.resolve())).toEqual({ done: [], failed: [] });
  });
});
