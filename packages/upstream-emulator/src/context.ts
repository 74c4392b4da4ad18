import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EmulatorState } from './state';
import type { AskHost } from './stream';
import type { Fault, Knobs, RecordedRequest } from './types';

/** What handlers see of the running emulator. */
export interface EmulatorCore extends AskHost {
  /** `http://host:port` */
  readonly url: string;
  readonly state: EmulatorState;
  /** Origin put into the upload and download URLs handed out (the emulator's own `url` unless changed). */
  blobOrigin(): string;
  /** Current knobs (read when an ask starts). */
  knobs(): Knobs;
  /** The configured fault for the next ask; a `once` fault is consumed. */
  takeFault(): Fault | null;
}

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** Captures of the route pattern. */
  params: string[];
  record: RecordedRequest;
  /** Parsed JSON body (undefined when empty or not JSON). */
  body: unknown;
  rawBody: Buffer;
  /** The body was sent but is not valid JSON. */
  bodyInvalid: boolean;
  core: EmulatorCore;
}

export type Handler = (ctx: RequestContext) => void | Promise<void>;

export interface Route {
  method: string;
  pattern: RegExp;
  handler: Handler;
}

/** Path parameter by index, decoded. */
export function param(ctx: RequestContext, index: number): string {
  return decodeURIComponent(ctx.params[index] ?? '');
}
