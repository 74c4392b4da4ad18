import v8 from 'node:v8';

/**
 * How far V8 lets the heap grow past what the last full collection kept before it collects again, percent. V8's
 * own factor (up to 4 times for a fast-allocating process) let a server with ~100 MB live at 1,000 streams peak at
 * 331–532 MB of RSS; at 30 % it peaked at 268–305 MB, for ~10–15 % more CPU spent collecting (mostly on V8's
 * helper threads). See the README's Performance section. The young generation's size, which V8 fixes when the
 * process starts, is set on the command line instead (scripts/server-node-flags.mjs).
 */
export const HEAP_GROWING_PERCENT = 30;

const FLAG = '--heap-growing-percent';

/**
 * Sets the heap's growing factor for this process, unless its command line sets one (`node --heap-growing-percent=0
 * apps/server/dist/main.js` restores V8's own). Returns the flag set, or null when the command line's is kept.
 */
export function limitHeapGrowth(
  execArgv: readonly string[] = process.execArgv,
  setFlags: (flags: string) => void = (flags) => v8.setFlagsFromString(flags),
): string | null {
  if (execArgv.some((arg) => arg === FLAG || arg.startsWith(`${FLAG}=`))) return null;
  const flag = `${FLAG}=${HEAP_GROWING_PERCENT}`;
  setFlags(flag);
  return flag;
}
