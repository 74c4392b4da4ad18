import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { MachineRead, MachineUpdate } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

export function updateMachine(body: MachineUpdate): Promise<MachineRead> {
  return apiClient.post<MachineRead>(adminApiPaths.updateMachine, { body });
}

export function useUpdateMachine() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: updateMachine,
    onSuccess: () => client.invalidateQueries({ queryKey: adminKeys.machines }),
  });
}
