/**
 * Runs `task` when the browser is idle (at the latest after `timeout` ms, when given); where there is no idle
 * callback, in a later turn. Returns the cancel.
 */
export function whenIdle(task: () => void, timeout?: number): () => void {
  if (typeof requestIdleCallback !== 'function') {
    const timer = setTimeout(task, 0);
    return () => clearTimeout(timer);
  }
  const handle = requestIdleCallback(task, timeout === undefined ? undefined : { timeout });
  return () => cancelIdleCallback(handle);
}
