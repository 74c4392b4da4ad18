/**
 * @cc/upstream-emulator: a local server that speaks the two upstream protocols Chat Commons relays to
 * (ChatGPT web `backend-api` and OpenAI Chat Completions), for integration tests, the demo mode and benchmarks.
 */
export { startEmulator } from './server';
export { SCENARIOS } from './scenarios';
export { DEFAULT_KNOBS } from './types';
export type { Emulator, EmulatorOptions, Fault, Knobs, RecordedRequest } from './types';
