import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorEnvelope, ReadinessStatus, envelope } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { ok } from '../http/envelope';
import { checkReadiness } from '../services/health.service';

export function healthRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/healthz',
    {
      config: { access: 'public' },
      schema: {
        tags: ['system'],
        summary:
          'Liveness (no auth): the process answers; readiness (database, Redis, draining) is /api/readyz',
        response: {
          200: envelope(z.object({ status: z.literal('ok'), database: z.string(), version: z.string() })),
        },
      },
    },
    () => ok({ status: 'ok' as const, database: ctx.dbHandle.dialect, version: '1.0.1' }),
  );

  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/readyz',
    {
      config: { access: 'public' },
      schema: {
        tags: ['system'],
        summary:
          'Readiness: database, Redis (when configured), not draining (no auth); 503 names the failed check',
        response: { 200: envelope(ReadinessStatus), 503: ErrorEnvelope },
      },
    },
    async () => ok(await checkReadiness(ctx)),
  );
}
