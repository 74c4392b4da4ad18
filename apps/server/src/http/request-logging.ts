import type { FastifyRequest } from 'fastify';

/** Probes a load balancer or monitor sends every few seconds. */
const PROBES = new Set(['/api/healthz', '/api/readyz']);

/**
 * Requests whose "incoming request" / "request completed" lines are left out of the logs (console and file):
 * health probes, and everything outside /api/ (the web app's files and pages). They would bury the lines that
 * matter; failures while serving them are still logged by the error handler.
 */
export function isQuietRequest(request: Pick<FastifyRequest, 'url'>): boolean {
  const pathname = request.url.split('?', 1)[0] ?? '';
  return PROBES.has(pathname) || !pathname.startsWith('/api/');
}
