/**
 * The statistics rollups keep each row's distinct users as a sorted JSON array of ids (`[3,17,42]`). On SQLite the
 * upsert merges the stored list with the incoming one through this function (registered on every connection by
 * `openDb`): reading the stored list with `json_each` to place one new id took ~150 µs for 1,000 ids, six rollup rows
 * an ask — 0.7 ms of the event loop per ask when many users ask within one bucket. Here each incoming id is found by
 * a binary search over the text (a few numbers read) and written in with one copy of the text.
 */
export const MERGED_USERS_FUNCTION = 'cc_merged_users';

const COMMA = 44;
const OPEN = 91;

/**
 * The sorted, distinct union of two sorted id lists (JSON arrays). When every incoming id is already stored, the
 * stored text is returned as it is.
 */
export function mergedUserLists(stored: string | null, incoming: string | null): string {
  if (!incoming || incoming === '[]') return stored ?? '[]';
  if (!stored || stored === '[]') return incoming;
  if (!/^\[\d+(,\d+)*\]$/.test(stored)) return mergedByParsing(stored, incoming);
  let list = stored;
  for (const id of JSON.parse(incoming) as number[]) list = withId(list, id);
  return list;
}

/** `list` (a sorted list of at least one id, no spaces) with `id` in its place. */
function withId(list: string, id: number): string {
  const end = list.length - 1; // the `]`
  // The first element whose id is not below `id` starts at `low` (`end`: none).
  let low = 1;
  let high = end;
  while (low < high) {
    let start = (low + high) >>> 1;
    while (start > low && list.charCodeAt(start - 1) !== COMMA && list.charCodeAt(start - 1) !== OPEN)
      start--;
    const [value, after] = readId(list, start);
    if (value < id) low = after === end ? end : after + 1;
    else high = start;
  }
  if (low < end && readId(list, low)[0] === id) return list;
  return low === end ? `${list.slice(0, end)},${id}]` : `${list.slice(0, low)}${id},${list.slice(low)}`;
}

/** The id written at `start` and the index just after it. */
function readId(list: string, start: number): [number, number] {
  let value = 0;
  let at = start;
  for (let c = list.charCodeAt(at); c >= 48 && c <= 57; c = list.charCodeAt(++at))
    value = value * 10 + (c - 48);
  return [value, at];
}

/** Any other text a list may hold (spaces, say): read whole, merged, written again. */
function mergedByParsing(stored: string, incoming: string): string {
  const ids = new Set([...(JSON.parse(stored) as number[]), ...(JSON.parse(incoming) as number[])]);
  return `[${[...ids].sort((a, b) => a - b).join(',')}]`;
}
