/** Least time between two renders of a streaming answer (see `useAsk`). */
export const STREAM_RENDER_INTERVAL_MS = 50;

export interface FrameThrottle {
  /** Asks for a run: on the next animation frame, no sooner than the interval after the last run. */
  schedule(): void;
  /** Drops a run asked for and not yet done. */
  cancel(): void;
}

/**
 * Runs `run` at most once per animation frame and at least `intervalMs` apart, however often it is asked for: a fast
 * stream (hundreds of chunks a second) costs one render per interval, and each render lays out the growing answer.
 */
export function createFrameThrottle(
  run: () => void,
  intervalMs: number,
  now: () => number = () => performance.now(),
): FrameThrottle {
  let frame: number | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let last = -Infinity;
  const onFrame = () => {
    frame = null;
    last = now();
    run();
  };
  return {
    schedule() {
      if (frame !== null || timer !== null) return;
      const wait = last + intervalMs - now();
      if (wait <= 0) {
        frame = requestAnimationFrame(onFrame);
        return;
      }
      timer = setTimeout(() => {
        timer = null;
        frame = requestAnimationFrame(onFrame);
      }, wait);
    },
    cancel() {
      if (frame !== null) cancelAnimationFrame(frame);
      if (timer !== null) clearTimeout(timer);
      frame = null;
      timer = null;
    },
  };
}
