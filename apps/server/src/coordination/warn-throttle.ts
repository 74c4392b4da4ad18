/**
 * Wraps a warning so that a flood of identical failures (a Redis that is down retries every few hundred ms) logs
 * at most once per `intervalMs`; the next warning says how many were left out meanwhile.
 */
export function throttleWarnings(
  warn: (err: unknown, suppressed: number) => void,
  intervalMs = 10_000,
  now: () => number = Date.now,
): (err: unknown) => void {
  let last = -Infinity;
  let suppressed = 0;
  return (err) => {
    const t = now();
    if (t - last < intervalMs) {
      suppressed += 1;
      return;
    }
    last = t;
    warn(err, suppressed);
    suppressed = 0;
  };
}

/** Rejects when `promise` has not settled after `ms` (the promise itself keeps running). */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
