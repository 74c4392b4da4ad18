import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFrameThrottle } from './frame-throttle';

describe('createFrameThrottle', () => {
  beforeEach(() => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'requestAnimationFrame', 'cancelAnimationFrame', 'performance'],
    });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs once per animation frame however often it is asked', () => {
    const run = vi.fn();
    const throttle = createFrameThrottle(run, 0);
    for (let i = 0; i < 100; i++) throttle.schedule();
    expect(run).not.toHaveBeenCalled();
    vi.advanceTimersByTime(16);
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('keeps runs at least the interval apart: 200 requests a second give about 20 runs', () => {
    const run = vi.fn();
    const throttle = createFrameThrottle(run, 50);
    for (let ms = 0; ms < 1000; ms += 5) {
      throttle.schedule();
      vi.advanceTimersByTime(5);
    }
    vi.advanceTimersByTime(100);
    expect(run.mock.calls.length).toBeGreaterThanOrEqual(15);
    expect(run.mock.calls.length).toBeLessThanOrEqual(21);
  });

  it('runs the last request too (nothing asked for is lost), and not after cancel', () => {
    const run = vi.fn();
    const throttle = createFrameThrottle(run, 50);
    throttle.schedule();
    vi.advanceTimersByTime(16);
    throttle.schedule();
    vi.advanceTimersByTime(100);
    expect(run).toHaveBeenCalledTimes(2);
    throttle.schedule();
    throttle.cancel();
    vi.advanceTimersByTime(100);
    expect(run).toHaveBeenCalledTimes(2);
  });
});
