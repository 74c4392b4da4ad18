export interface BulkResult<T> {
  /** Items that succeeded. */
  done: T[];
  /** Items that failed, with the error. */
  failed: { item: T; error: unknown }[];
}

/**
 * Runs one call per item with a few in flight at once (not the predecessor's sequential loop with sleeps),
 * reporting progress after each item. A failure does not stop the others.
 */
export async function runBulk<T>(
  items: readonly T[],
  call: (item: T) => Promise<unknown>,
  options: { concurrency?: number; onProgress?: (finished: number, total: number) => void } = {},
): Promise<BulkResult<T>> {
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const result: BulkResult<T> = { done: [], failed: [] };
  let next = 0;
  let finished = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      try {
        await call(item);
        result.done.push(item);
      } catch (error) {
        result.failed.push({ item, error });
      }
      finished += 1;
      options.onProgress?.(finished, items.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return result;
}
