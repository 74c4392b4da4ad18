import { queryOptions, useQuery } from '@tanstack/react-query';
import type { Plugin, PluginList } from '@cc/contracts';
import { apiPaths } from '../config/paths';
import { apiClient } from './api-client';
import { queryKeys } from './query-keys';

/** The web account's installed plugins (shared: the new-conversation form and the conversation header read them). */
export function getInstalledPlugins(): Promise<PluginList> {
  return apiClient.get<PluginList>(apiPaths.installedPlugins, { silent: true });
}

export const installedPluginsQueryOptions = queryOptions({
  queryKey: queryKeys.installedPlugins,
  queryFn: getInstalledPlugins,
  staleTime: 5 * 60_000,
});

/** A plugin's name for people: its manifest's human name, else its namespace, else null. */
export function pluginName(plugin: Plugin | undefined): string | null {
  return plugin?.manifest?.name_for_human || plugin?.namespace || null;
}

/**
 * Names of the plugins with these ids (null where the installed list does not know the id, or has not loaded).
 * The list is fetched only when there are ids to name.
 */
export function usePluginNames(ids: readonly string[] | null | undefined): (string | null)[] {
  const wanted = ids ?? [];
  const { data } = useQuery({ ...installedPluginsQueryOptions, enabled: wanted.length > 0 });
  return wanted.map((id) => pluginName(data?.items.find((p) => p.id === id)));
}
