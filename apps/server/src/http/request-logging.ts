import { LogController } from 'fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Probes a load balancer or monitor sends every few seconds. */
const PROBES = new Set(['/api/healthz', '/api/readyz']);

/**
 * How much of a request's "incoming request" / "request completed" pair is logged: health probes not at all
 * (they would fill the log file), the web app's files and pages (everything outside /api/) at debug only, the API
 * at info. A request that fails is logged as an error whatever its kind.
 */
export function requestLogLevel(request: Pick<FastifyRequest, 'url'>): 'info' | 'debug' | 'silent' {
  const pathname = request.url.split('?', 1)[0] ?? '';
  if (PROBES.has(pathname)) return 'silent';
  return pathname.startsWith('/api/') ? 'info' : 'debug';
}

/** Fastify's per-request log lines, at the level `requestLogLevel` gives. */
export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>) {
    const level = requestLogLevel(request);
    if (level === 'info') super.incomingRequest(request, reply, metadata);
    else if (level === 'debug') request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
    metadata?: Record<string, unknown>,
  ) {
    const level = requestLogLevel(request);
    if (error || level === 'info') super.requestCompleted(error, request, reply, metadata);
    else if (level === 'debug')
      reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
