import { queryOptions, useQuery } from '@tanstack/react-query';
import type { Plugin, PluginList } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';
import { queryKeys } from '../../../lib/query-keys';

/** Installed plugins of the web account (contract shape). */
export type InstalledPlugin = Plugin;

export function getInstalledPlugins(): Promise<PluginList> {
  return apiClient.get<PluginList>(apiPaths.installedPlugins, { silent: true });
}

export const installedPluginsQueryOptions = queryOptions({
  queryKey: queryKeys.installedPlugins,
  queryFn: getInstalledPlugins,
  staleTime: 5 * 60_000,
});

/** Loaded only when the form needs it (web + gpt_4_plugins). */
export function useInstalledPlugins(enabled: boolean) {
  return useQuery({ ...installedPluginsQueryOptions, enabled });
}
