import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { PluginList } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import type { PluginQuery } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

/** A store plugin and a page of them, as the contracts define them (SPEC §3 "Plugin"). */
export type { Plugin as AdminPlugin, PluginList as PluginPage } from '@cc/contracts';

export function getPlugins(query: PluginQuery): Promise<PluginList> {
  return apiClient.get<PluginList>(adminApiPaths.plugins(query));
}

export function getInstalledPlugins(): Promise<PluginList> {
  return apiClient.get<PluginList>(adminApiPaths.installedPlugins);
}

/** One page of the store, or (installedOnly) the installed plugins. */
export function usePlugins(query: PluginQuery & { installedOnly: boolean }) {
  const { installedOnly, ...rest } = query;
  return useQuery({
    queryKey: adminKeys.pluginList(query),
    queryFn: () => (installedOnly ? getInstalledPlugins() : getPlugins(rest)),
    placeholderData: keepPreviousData,
    staleTime: 60_000,
  });
}
