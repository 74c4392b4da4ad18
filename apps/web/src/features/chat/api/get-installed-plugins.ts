import { useQuery } from '@tanstack/react-query';
import type { Plugin } from '@cc/contracts';
import { installedPluginsQueryOptions } from '../../../lib/plugins';

/** Installed plugins of the web account (contract shape). */
export type InstalledPlugin = Plugin;

/** Loaded only when the form needs it (web + gpt_4_plugins). */
export function useInstalledPlugins(enabled: boolean) {
  return useQuery({ ...installedPluginsQueryOptions, enabled });
}
