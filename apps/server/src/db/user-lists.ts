/**
 * The statistics rollups keep each row's distinct users as a sorted JSON array of ids (`[3,17,42]`). On SQLite the
 * upsert merges the stored list with the incoming one through this function (registered on every connection by
 * `openDb`): reading the stored list with `json_each` to place one new id took ~150 µs for 1,000 ids, six rollup rows
 * an ask — 0.7 ms of the event loop per ask when many users ask within one bucket. Here: a parse and a binary search.
 */
export const MERGED_USERS_FUNCTION = 'cc_merged_users';

/**
 * The sorted, distinct union of two sorted id lists (JSON arrays). When every incoming id is already stored, the
 * stored text is returned as it is.
 */
export function mergedUserLists(stored: string | null, incoming: string | null): string {
  if (!incoming || incoming === '[]') return stored ?? '[]';
  if (!stored || stored === '[]') return incoming;
  const ids = JSON.parse(stored) as number[];
  let added = false;
  for (const id of JSON.parse(incoming) as number[]) {
    let low = 0;
    let high = ids.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (ids[middle]! < id) low = middle + 1;
      else high = middle;
    }
    if (ids[low] === id) continue;
    ids.splice(low, 0, id);
    added = true;
  }
  return added ? `[${ids.join(',')}]` : stored;
}
