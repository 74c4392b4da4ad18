import { useMutation, useQueryClient } from '@tanstack/react-query';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

export function deleteMachine(id: number): Promise<null> {
  return apiClient.delete<null>(adminApiPaths.deleteMachine(id));
}

export function useDeleteMachine() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: deleteMachine,
    onSuccess: () => client.invalidateQueries({ queryKey: adminKeys.machines }),
  });
}
