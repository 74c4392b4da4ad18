import { describe, expect, it } from 'vitest';
import { throttleWarnings, withTimeout } from './warn-throttle';

describe('throttleWarnings', () => {
  it('logs the first error, then at most one per interval with the count left out meanwhile', () => {
    let now = 1_000;
    const logged: [unknown, number][] = [];
    const warn = throttleWarnings(
      (err, suppressed) => logged.push([err, suppressed]),
      10_000,
      () => now,
    );
    warn('a');
    now += 100;
    warn('b');
    warn('c');
    now += 9_899;
    warn('d');
    expect(logged).toEqual([['a', 0]]);
    now += 1;
    warn('e');
    expect(logged).toEqual([
      ['a', 0],
      ['e', 3],
    ]);
  });
});

describe('withTimeout', () => {
  it('rejects naming what did not answer, and passes a prompt answer through', async () => {
    await expect(withTimeout(new Promise(() => undefined), 10, 'Redis PING')).rejects.toThrow(
      'Redis PING: no answer within 10 ms',
    );
    await expect(withTimeout(Promise.resolve('PONG'), 1_000, 'Redis PING')).resolves.toBe('PONG');
  });
});
