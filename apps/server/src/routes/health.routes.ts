import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { envelope } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { ok } from '../http/envelope';

export function healthRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/healthz',
    {
      config: { access: 'public' },
      schema: {
        tags: ['system'],
        summary: 'Liveness and database check (no auth)',
        response: {
          200: envelope(z.object({ status: z.literal('ok'), database: z.string(), version: z.string() })),
        },
      },
    },
    async () => {
      await ctx.dbHandle.ping();
      return ok({ status: 'ok' as const, database: ctx.dbHandle.dialect, version: '1.0.1' });
    },
  );
}
