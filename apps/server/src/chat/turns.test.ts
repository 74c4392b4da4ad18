import { describe, expect, it } from 'vitest';
import { StartQueue } from './turns';

/** A queue on a hand-moved clock whose turns run when the test says so. */
function queue(sliceMs: number) {
  let now = 0;
  const turns: (() => void)[] = [];
  const q = new StartQueue({ sliceMs, now: () => now, nextTurn: (run) => turns.push(run) });
  const admitted: string[] = [];
  const leaves = new Map<string, () => void>();
  const enter = (name: string) =>
    void q.enter().then((leave) => {
      admitted.push(name);
      leaves.set(name, leave);
    });
  /** Runs the pending turn, then lets the promises settle. */
  const turn = async () => {
    turns.shift()?.();
    await flush();
  };
  const flush = () => new Promise<void>((resolve) => queueMicrotask(resolve)).then(() => undefined);
  return {
    q,
    admitted,
    enter,
    turn,
    flush,
    leave: async (name: string) => {
      leaves.get(name)!();
      await flush();
    },
    advance: (ms: number) => (now += ms),
    pendingTurns: () => turns.length,
  };
}

describe('admitting asks', () => {
  it('one at a time in arrival order; the next right after the previous lets go while the slice lasts', async () => {
    const s = queue(10);
    for (const name of ['a', 'b', 'c']) s.enter(name);
    await s.flush();
    expect(s.admitted).toEqual([]);
    await s.turn();
    expect(s.admitted).toEqual(['a']);
    s.advance(4);
    await s.leave('a');
    expect(s.admitted).toEqual(['a', 'b']);
    // The slice is used up: c waits for the next turn (the event loop polls I/O first).
    s.advance(6);
    await s.leave('b');
    expect(s.admitted).toEqual(['a', 'b']);
    expect(s.pendingTurns()).toBe(1);
    await s.turn();
    expect(s.admitted).toEqual(['a', 'b', 'c']);
    expect(s.q.size).toBe(0);
  });

  it('with no slice, one ask per turn', async () => {
    const s = queue(0);
    for (const name of ['a', 'b']) s.enter(name);
    await s.turn();
    await s.leave('a');
    expect(s.admitted).toEqual(['a']);
    await s.turn();
    expect(s.admitted).toEqual(['a', 'b']);
  });

  it('an ask that holds on (waiting on I/O) holds the next one up until the next turn only; letting go twice does nothing', async () => {
    const s = queue(10);
    for (const name of ['a', 'b', 'c']) s.enter(name);
    await s.turn();
    expect(s.admitted).toEqual(['a']);
    await s.turn();
    expect(s.admitted).toEqual(['a', 'b']);
    // a lets go late: b is being admitted, c still waits for its own turn.
    await s.leave('a');
    await s.leave('a');
    expect(s.admitted).toEqual(['a', 'b']);
    await s.leave('b');
    expect(s.admitted).toEqual(['a', 'b', 'c']);
  });
});
