import { useMutation, useQueryClient } from '@tanstack/react-query';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

/** Probes every server now; the answer is a one-line summary. */
export function checkMachines(): Promise<string> {
  return apiClient.post<string>(adminApiPaths.checkMachines);
}

export function useCheckMachines() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: checkMachines,
    onSuccess: () => client.invalidateQueries({ queryKey: adminKeys.machines }),
  });
}
