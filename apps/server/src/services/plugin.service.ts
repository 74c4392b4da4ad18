import { ERROR_DETAILS } from '@cc/contracts';
import type { Plugin, PluginList } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { fail } from '../errors/app-error';
import { webClient } from '../sources/openai-web/client';
import { announceChange } from './shared-changes.service';

const INSTALLED_TTL_MS = 5 * 60_000;
let installed: { at: number; ctx: AppContext; value: PluginList } | null = null;

function client(ctx: AppContext) {
  return webClient(ctx.upstream.webTarget());
}

function requirePlus(ctx: AppContext): void {
  if (!ctx.runtime.current().openai_web.is_plus_account)
    throw fail.paidModelNotAvailable(ERROR_DETAILS.pluginsNeedPlus);
}

/** The plugin store (paged, filtered) of the web account. */
export async function listAllPlugins(
  ctx: AppContext,
  q: { offset: number; limit: number; category: string; search: string },
) {
  requirePlus(ctx);
  return client(ctx).approvedPlugins(q);
}

/** Installed plugins (cached 5 minutes, refreshed on install/uninstall). */
export async function listInstalledPlugins(ctx: AppContext, fresh = false) {
  if (!fresh && installed && installed.ctx === ctx && Date.now() - installed.at < INSTALLED_TTL_MS)
    return installed.value;
  const value = await client(ctx).installedPlugins();
  installed = { at: Date.now(), ctx, value };
  return value;
}

/** Drops the cached list of installed plugins (another instance installed or removed one). */
export function forgetInstalledPlugins(ctx: AppContext): void {
  if (installed?.ctx === ctx) installed = null;
}

export async function getPlugin(ctx: AppContext, pluginId: string): Promise<Plugin> {
  const all = await listInstalledPlugins(ctx);
  const found = all.items.find((p) => p.id === pluginId);
  if (found) return found;
  const store = await client(ctx).approvedPlugins({ offset: 0, limit: 250, category: '', search: '' });
  const inStore = store.items.find((p) => p.id === pluginId);
  if (!inStore) throw fail.notFound(ERROR_DETAILS.pluginNotFound);
  return inStore;
}

/** Install or uninstall a plugin on the web account. */
export async function setPluginInstalled(
  ctx: AppContext,
  pluginId: string,
  isInstalled: boolean,
): Promise<unknown> {
  const result = await client(ctx).pluginUserSettings(pluginId, isInstalled);
  await listInstalledPlugins(ctx, true).catch(() => undefined);
  announceChange(ctx, 'plugins');
  return result;
}
