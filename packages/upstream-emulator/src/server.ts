import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { apiRoutes } from './api-routes';
import type { EmulatorCore, RequestContext, Route } from './context';
import { parseFault } from './faults';
import { loadConversations, StateFileWriter } from './persistence';
import { blobRoutes, fileRoutes } from './files-routes';
import { SCENARIOS } from './scenarios';
import { EmulatorState } from './state';
import type { Emulator, EmulatorOptions, Fault, Knobs, RecordedRequest } from './types';
import { DEFAULT_KNOBS } from './types';
import { isRecord, sendJson } from './util';
import { webAskRoutes } from './web-ask';
import { webRoutes } from './web-routes';

const ROUTES: readonly Route[] = [...webAskRoutes, ...webRoutes, ...fileRoutes, ...blobRoutes, ...apiRoutes];

/** Largest request body accepted (blob uploads included). */
const MAX_BODY_BYTES = 128 * 1024 * 1024;

class BodyTooLargeError extends Error {}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new BodyTooLargeError('request body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Validates a knobs patch from the control endpoint or `setKnobs`. */
export function parseKnobs(value: unknown): Partial<Knobs> | string {
  if (!isRecord(value)) return 'knobs must be an object';
  const out: Partial<Knobs> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key !== 'firstTokenLatencyMs' && key !== 'tokensPerSecond' && key !== 'chunkSize') {
      return `unknown knob: ${key}`;
    }
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) return `${key} must be a non-negative number`;
    if (key === 'chunkSize' && (!Number.isInteger(v) || v < 1)) return 'chunkSize must be a positive integer';
    out[key] = v;
  }
  return out;
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

class EmulatorServer implements EmulatorCore {
  url = '';
  readonly state = new EmulatorState();
  readonly requests: RecordedRequest[] = [];
  private readonly initialKnobs: Knobs;
  private currentKnobs: Knobs;
  private fault: Fault | null = null;
  private currentBlobOrigin: string | null = null;
  private seq = 0;
  private closing = false;
  private closed: Promise<void> | null = null;
  private readonly controllers = new Set<AbortController>();
  private readonly sockets = new Set<Socket>();
  private readonly waiters = new Set<(r: RecordedRequest) => void>();
  /** Keeps the web conversations in `opts.stateFile`, when given. */
  private readonly stateFile: StateFileWriter | null = null;
  readonly server: Server;

  constructor(private readonly opts: EmulatorOptions) {
    const knobs = parseKnobs(opts.knobs ?? {});
    if (typeof knobs === 'string') throw new Error(`Invalid emulator knobs: ${knobs}`);
    this.initialKnobs = { ...DEFAULT_KNOBS, ...knobs };
    this.currentKnobs = { ...this.initialKnobs };
    if (opts.stateFile) {
      const warn = opts.warn ?? ((message: string) => console.warn(message));
      this.state.restore(loadConversations(opts.stateFile, warn));
      this.stateFile = new StateFileWriter(opts.stateFile, () => this.state.conversations.values(), warn);
    }
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        console.error('[upstream-emulator] handler error', err);
        if (!res.headersSent) sendJson(res, 500, { detail: 'Internal emulator error' });
        else res.destroy();
      });
    });
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.server.on('clientError', (_err, socket) => socket.destroy());
  }

  // EmulatorCore / AskHost

  knobs(): Knobs {
    return { ...this.currentKnobs };
  }

  takeFault(): Fault | null {
    const f = this.fault;
    if (f?.once) this.fault = null;
    return f ? { ...f } : null;
  }

  isClosing(): boolean {
    return this.closing;
  }

  recordUpdated(record: RecordedRequest): void {
    for (const waiter of [...this.waiters]) waiter(record);
  }

  track(controller: AbortController): void {
    this.controllers.add(controller);
  }

  untrack(controller: AbortController): void {
    this.controllers.delete(controller);
  }

  // Public API

  setKnobs(k: Partial<Knobs>): void {
    const parsed = parseKnobs(k);
    if (typeof parsed === 'string') throw new Error(`Invalid emulator knobs: ${parsed}`);
    this.currentKnobs = { ...this.currentKnobs, ...parsed };
  }

  setFault(f: Fault | null): void {
    const parsed = parseFault(f);
    if (typeof parsed === 'string') throw new Error(`Invalid emulator fault: ${parsed}`);
    this.fault = parsed;
  }

  blobOrigin(): string {
    return this.currentBlobOrigin ?? this.opts.blobOrigin ?? this.url;
  }

  setBlobOrigin(origin: string | null): void {
    this.currentBlobOrigin = origin === null ? null : new URL(origin).origin;
  }

  reset(): void {
    this.currentBlobOrigin = null;
    this.state.reset();
    this.stateFile?.changed();
    this.currentKnobs = { ...this.initialKnobs };
    this.fault = null;
    this.requests.length = 0;
  }

  waitForRequest(pred: (r: RecordedRequest) => boolean, timeoutMs = 5000): Promise<RecordedRequest> {
    const found = this.requests.find(pred);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const cleanup = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      const check = (r: RecordedRequest): void => {
        let matches: boolean;
        try {
          matches = pred(r);
        } catch (err) {
          cleanup();
          reject(err instanceof Error ? err : new Error(String(err)));
          return;
        }
        if (matches) {
          cleanup();
          resolve(r);
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`waitForRequest: no matching request within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  async listen(): Promise<void> {
    const host = this.opts.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      // A provider's front end takes thousands of connections at once; Node's default queue of 511 would drop some.
      this.server.listen({ port: this.opts.port ?? 0, host, backlog: 4096 }, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const address = this.server.address() as AddressInfo;
    this.url = `http://${urlHost(host)}:${address.port}`;
  }

  close(): Promise<void> {
    if (this.closed) return this.closed;
    this.closing = true;
    for (const controller of this.controllers) controller.abort();
    this.closed = new Promise<void>((resolve) => {
      this.server.close(() => {
        // Once the connections are gone, so that answers cut short by the close are saved as interrupted.
        this.stateFile?.stop();
        resolve();
      });
      this.server.closeAllConnections();
      for (const socket of this.sockets) socket.destroy();
    });
    return this.closed;
  }

  // Request handling

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://emulator.invalid');
    if (url.pathname.startsWith('/__control/')) return this.handleControl(req, res, url);

    let rawBody: Buffer;
    try {
      rawBody = await readBody(req);
    } catch (err) {
      if (err instanceof BodyTooLargeError) return sendJson(res, 413, { detail: 'Request body too large' });
      throw err;
    }
    let body: unknown = undefined;
    let bodyInvalid = false;
    const isBlob = url.pathname.startsWith('/blob/');
    if (rawBody.length > 0 && !isBlob) {
      try {
        body = JSON.parse(rawBody.toString('utf8'));
      } catch {
        bodyInvalid = true;
      }
    }
    const headers = flattenHeaders(req);
    const record: RecordedRequest = {
      seq: ++this.seq,
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      body,
      bodyBytes: rawBody.length,
      hadAuthorization: headers['authorization'] !== undefined,
      receivedAt: Date.now(),
    };
    this.requests.push(record);
    // Web conversations change only through non-GET backend-api requests; save once the response is over.
    if (this.stateFile && record.method !== 'GET' && url.pathname.startsWith('/backend-api/')) {
      res.once('close', () => this.stateFile?.changed());
    }
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
    (res as { writeHead: unknown }).writeHead = (...args: unknown[]): ServerResponse => {
      if (typeof args[0] === 'number') record.status = args[0];
      return writeHead(...args);
    };
    this.recordUpdated(record);

    const denied = this.checkAuth(url.pathname, headers['authorization']);
    if (denied) return denied(res);

    const pathMatches = ROUTES.filter((r) => r.pattern.test(url.pathname));
    const route = pathMatches.find((r) => r.method === req.method);
    if (!route) {
      if (url.pathname.startsWith('/v1/')) {
        const status = pathMatches.length > 0 ? 405 : 404;
        return sendJson(res, status, {
          error: {
            message: `Invalid URL (${req.method ?? 'GET'} ${url.pathname})`,
            type: 'invalid_request_error',
            param: null,
            code: null,
          },
        });
      }
      return sendJson(res, pathMatches.length > 0 ? 405 : 404, {
        detail: pathMatches.length > 0 ? 'Method Not Allowed' : 'Not Found',
      });
    }
    const ctx: RequestContext = {
      req,
      res,
      url,
      params: route.pattern.exec(url.pathname)?.slice(1) ?? [],
      record,
      body,
      rawBody,
      bodyInvalid,
      core: this,
    };
    await route.handler(ctx);
  }

  private checkAuth(path: string, authorization: string | undefined): ((res: ServerResponse) => void) | null {
    const { webAccessToken, apiKey } = this.opts;
    if (path.startsWith('/backend-api/') && webAccessToken !== undefined) {
      if (authorization !== `Bearer ${webAccessToken}`) {
        return (res) =>
          sendJson(res, 401, {
            detail: {
              message: 'Could not parse your authentication token. Please try signing in again.',
              type: 'invalid_request_error',
              param: null,
              code: 'invalid_jwt',
            },
          });
      }
    }
    if (path.startsWith('/v1/') && apiKey !== undefined && authorization !== `Bearer ${apiKey}`) {
      return (res) =>
        sendJson(res, 401, {
          error: {
            message:
              'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.',
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_api_key',
          },
        });
    }
    return null;
  }

  private async handleControl(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const raw = await readBody(req);
    let body: unknown = undefined;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return sendJson(res, 400, { error: 'body is not valid JSON' });
      }
    }
    const route = `${req.method ?? 'GET'} ${url.pathname}`;
    switch (route) {
      case 'GET /__control/knobs':
        return sendJson(res, 200, this.knobs());
      case 'POST /__control/knobs': {
        const knobs = parseKnobs(body ?? {});
        if (typeof knobs === 'string') return sendJson(res, 400, { error: knobs });
        this.currentKnobs = { ...this.currentKnobs, ...knobs };
        return sendJson(res, 200, this.knobs());
      }
      case 'GET /__control/fault':
        return sendJson(res, 200, this.fault);
      case 'POST /__control/fault': {
        const fault = parseFault(body ?? null);
        if (typeof fault === 'string') return sendJson(res, 400, { error: fault });
        this.fault = fault;
        return sendJson(res, 200, this.fault);
      }
      case 'POST /__control/reset':
        this.reset();
        return sendJson(res, 200, { ok: true });
      case 'GET /__control/requests':
        return sendJson(res, 200, this.requests);
      case 'GET /__control/scenarios':
        return sendJson(res, 200, SCENARIOS);
      default:
        return sendJson(res, 404, { error: `unknown control route ${route}` });
    }
  }
}

/** Starts the emulator on `host:port` (default 127.0.0.1, random port). */
export async function startEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  const core = new EmulatorServer(opts);
  await core.listen();
  return {
    url: core.url,
    webBaseUrl: `${core.url}/backend-api/`,
    apiBaseUrl: `${core.url}/v1/`,
    close: () => core.close(),
    setKnobs: (k) => core.setKnobs(k),
    setFault: (f) => core.setFault(f),
    setBlobOrigin: (origin) => core.setBlobOrigin(origin),
    requests: core.requests,
    waitForRequest: (pred, timeoutMs) => core.waitForRequest(pred, timeoutMs),
    reset: () => core.reset(),
  };
}
