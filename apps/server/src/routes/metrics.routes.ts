import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context';
import { renderMetrics } from '../metrics/metrics';

/**
 * `/metrics`: the Prometheus text format, for a superuser session or the configured bearer token. Plain text, not
 * the envelope (a scraper reads it); refusals keep the envelope with their real HTTP status (401, 403).
 */
export function metricsRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/metrics',
    {
      config: { access: 'metrics' },
      // A 401 names the scheme that would pass (RFC 9110), so a scraper's log says what is missing.
      onSend: async (_request, reply, payload) => {
        if (reply.statusCode === 401) reply.header('www-authenticate', 'Bearer realm="metrics"');
        return payload;
      },
      schema: {
        tags: ['system'],
        summary: 'Prometheus metrics (superuser session or `Authorization: Bearer <auth.metrics_token>`)',
        security: [{ session: [] }, { metricsToken: [] }],
      },
    },
    async (_request, reply) => {
      const { contentType, body } = await renderMetrics(ctx.metrics);
      return reply.type(contentType).send(body);
    },
  );
}
