import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { CredentialsRead, CredentialsWrite } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

/** A new value, null to clear, the mask (or nothing) to keep. */
export function updateCredentials(body: CredentialsWrite): Promise<CredentialsRead> {
  return apiClient.put<CredentialsRead>(adminApiPaths.credentials, { body });
}

export function useUpdateCredentials() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: updateCredentials,
    onSuccess: (saved) => client.setQueryData(adminKeys.credentials, saved),
  });
}
