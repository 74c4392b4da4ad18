import { useMutation, useQueryClient } from '@tanstack/react-query';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { queryKeys } from '../../../../lib/query-keys';
import { adminKeys } from '../../shared/query-keys';

/** Installs or uninstalls a plugin on the web account (only installed plugins can be picked in the chat). */
export function setPluginInstalled(input: { id: string; installed: boolean }): Promise<unknown> {
  return apiClient.patch<unknown>(adminApiPaths.pluginUserSettings(input.id), {
    body: { is_installed: input.installed },
  });
}

export function useSetPluginInstalled() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: setPluginInstalled,
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: adminKeys.plugins });
      await client.invalidateQueries({ queryKey: queryKeys.installedPlugins });
    },
  });
}
