import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { MachineCreate, MachineRead } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

export function addMachine(body: MachineCreate): Promise<MachineRead> {
  return apiClient.post<MachineRead>(adminApiPaths.addMachine, { body });
}

export function useAddMachine() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: addMachine,
    onSuccess: () => client.invalidateQueries({ queryKey: adminKeys.machines }),
  });
}
