import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ConfigSaved, ConfigWriteInput } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

/** Replaces the whole config; the answer lists the changed keys that apply only after a restart. */
export function updateConfig(config: ConfigWriteInput): Promise<ConfigSaved> {
  return apiClient.put<ConfigSaved>(adminApiPaths.config, { body: config });
}

export function useUpdateConfig() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: updateConfig,
    onSuccess: (saved) => {
      client.setQueryData(adminKeys.config, saved.config);
      // Provider switches change what every page offers (sources, models, plugins).
      return client.invalidateQueries({ queryKey: adminKeys.all, refetchType: 'none' });
    },
  });
}
