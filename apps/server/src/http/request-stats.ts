import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { AppContext } from '../app-context';
import type { NewRequestLogRow } from '../db/schema';
import { requestLogRepository } from '../repositories/request-log.repository';

/** Rows are written in batches: at most this many, at most this late. */
const BATCH_SIZE = 200;
const FLUSH_MS = 500;

/** A JSON envelope starts with its code: `{"code":200,…` (read from the first bytes only, never parsed). */
const ENVELOPE_CODE = /^\{\s*"code"\s*:\s*(-?\d+)/;

declare module 'fastify' {
  interface FastifyInstance {
    /** Writes the request log rows still buffered (tests; also runs on close). */
    flushRequestStats(): Promise<void>;
  }
}

/** Route templates containing a filter keyword are not logged; the keywords are read live from the config. */
function isLogged(ctx: AppContext, routePath: string | undefined): routePath is string {
  if (!routePath?.startsWith('/api/') || routePath.startsWith('/api/docs')) return false;
  return !ctx.runtime.current().stats.request_stats_filter_keywords.some((k) => k && routePath.includes(k));
}

/**
 * The route label of the HTTP duration metric: the route pattern of an API route or /metrics (never the raw URL,
 * which would make a series per id), `static` for the web app's files, `unmatched` for a path without a route.
 */
function routeLabel(route: string | undefined): string {
  if (route === undefined) return 'unmatched';
  return route.startsWith('/api/') || route === '/metrics' ? route : 'static';
}

/**
 * One `request_logs` row per /api request: route template, method (WEBSOCKET for the chat socket, with its close
 * code as status), user, elapsed time and status (the envelope code of a JSON body, else the HTTP status). The
 * rows are buffered and inserted off the response path; a failed insert is only logged. The same points feed the
 * metrics: request duration by route pattern, open websockets.
 */
export function registerRequestStats(app: FastifyInstance, ctx: AppContext): void {
  let buffer: NewRequestLogRow[] = [];
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> = Promise.resolve();

  function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    const rows = buffer;
    buffer = [];
    if (rows.length > 0) {
      writing = writing
        .then(() => requestLogRepository(ctx.dbHandle.db).insertMany(rows))
        .catch((err: unknown) => ctx.log.warn({ err, rows: rows.length }, 'request stats not written'));
    }
    return writing;
  }

  function record(row: NewRequestLogRow): void {
    buffer.push(row);
    if (buffer.length >= BATCH_SIZE) void flush();
    else if (!timer) {
      timer = setTimeout(() => void flush(), FLUSH_MS);
      timer.unref();
    }
  }

  const statusOf = new WeakMap<FastifyRequest, number>();
  const sockets = new WeakMap<IncomingMessage, FastifyRequest>();

  app.decorate('flushRequestStats', flush);
  app.addHook('onClose', async () => flush());

  app.addHook('onRequest', async (request) => {
    // The chat socket: remembered here, logged when the socket closes (below).
    if (request.ws && isLogged(ctx, request.routeOptions.url)) sockets.set(request.raw, request);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    // Only a string body is looked at (JSON is serialized to one); streams and buffers are never read.
    if (typeof payload === 'string' && String(reply.getHeader('content-type') ?? '').includes('json')) {
      const m = ENVELOPE_CODE.exec(payload.slice(0, 32));
      if (m) statusOf.set(request, Number(m[1]));
    }
    return payload;
  });

  app.addHook('onResponse', async (request, reply) => {
    if (request.ws) return;
    const route = request.routeOptions.url;
    ctx.metrics.httpRequest(request.method, routeLabel(route), reply.statusCode, reply.elapsedTime / 1000);
    if (!isLogged(ctx, route)) return;
    record({
      time: new Date().toISOString(),
      route_path: route,
      method: request.method,
      user_id: request.auth?.user.id ?? null,
      elapsed_ms: Math.round(reply.elapsedTime * 100) / 100,
      status: statusOf.get(request) ?? reply.statusCode,
    });
  });

  app.websocketServer.on('connection', (socket: WebSocket, raw: IncomingMessage) => {
    ctx.metrics.socketOpened();
    socket.once('close', () => ctx.metrics.socketClosed());
    const request = sockets.get(raw);
    if (!request) return;
    const started = performance.now();
    socket.once('close', (code: number) => {
      record({
        time: new Date().toISOString(),
        route_path: request.routeOptions.url!,
        method: 'WEBSOCKET',
        user_id: request.auth?.user.id ?? null,
        elapsed_ms: Math.round((performance.now() - started) * 100) / 100,
        status: code,
      });
    });
  });
}
