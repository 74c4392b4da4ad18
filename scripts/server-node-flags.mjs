// The Node options the server runs with: `npm start` (scripts/start.mjs; also the server package's own start
// script), the end-to-end suite's server and the relay benchmark. They have to be on the command line: V8 sizes its
// heap when the process starts.

/**
 * The young generation's two semi-spaces at most 8 MB each (V8's own maximum on 64-bit: 16 MB). A streaming
 * server allocates fast, so its young generation soon reaches the maximum and stays there: 2 × 16 MB of RSS at idle
 * and under load. At 8 MB, the relay bench's 1,000 streams peaked at 245–248 MB of RSS instead of 271–283 MB, for
 * ~10 % more CPU in collections (mostly on V8's helper threads: the event-loop delay did not move beyond its spread);
 * at 4 MB, 237 MB for ~20 % more. See the README's Performance section. The heap's growing factor is set by the
 * server itself (apps/server/src/ops/heap.ts): that flag V8 still reads after start.
 */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=8'];
