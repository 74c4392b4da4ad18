import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { CommonStatus, envelope } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { ok } from '../http/envelope';
import { commonStatus } from '../services/status.service';

export function statusRoutes(app: FastifyInstance, ctx: AppContext): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get(
      '/api/status/common',
      { config: { access: 'user' }, schema: { tags: ['status'], response: { 200: envelope(CommonStatus) } } },
      async () => ok(await commonStatus(ctx)),
    );
}
