import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Plugin, PluginList, envelope } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { ok } from '../http/envelope';
import {
  getPlugin,
  listAllPlugins,
  listInstalledPlugins,
  setPluginInstalled,
} from '../services/plugin.service';

const PluginParams = z.object({ plugin_id: z.string().min(1).max(128) });

export function pluginRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['plugins'];

  r.get(
    '/api/chat/openai-plugins/all',
    {
      config: { access: 'user' },
      schema: {
        tags,
        querystring: z.object({
          offset: z.coerce.number().int().min(0).default(0),
          limit: z.coerce.number().int().min(0).max(250).default(0),
          category: z.string().default(''),
          search: z.string().default(''),
        }),
        response: { 200: envelope(PluginList) },
      },
    },
    async (request) => ok(await listAllPlugins(ctx, request.query)),
  );

  r.get(
    '/api/chat/openai-plugins/installed',
    { config: { access: 'user' }, schema: { tags, response: { 200: envelope(PluginList) } } },
    async () => ok(await listInstalledPlugins(ctx)),
  );

  r.get(
    '/api/chat/openai-plugin/:plugin_id',
    {
      config: { access: 'user' },
      schema: { tags, params: PluginParams, response: { 200: envelope(Plugin) } },
    },
    async (request) => ok(await getPlugin(ctx, request.params.plugin_id)),
  );

  r.patch(
    '/api/chat/openai-plugins/:plugin_id/user-settings',
    {
      config: { access: 'superuser' },
      schema: {
        tags,
        summary: 'Install or uninstall a plugin on the web account',
        params: PluginParams,
        querystring: z.object({ plugin_id: z.string().optional() }),
        body: z.object({ is_installed: z.boolean(), is_authenticated: z.null().optional() }),
        response: { 200: envelope(z.unknown()) },
      },
    },
    async (request) => ok(await setPluginInstalled(ctx, request.params.plugin_id, request.body.is_installed)),
  );
}
