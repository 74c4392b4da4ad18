import { useQuery } from '@tanstack/react-query';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';
import type { AdminPlugin } from './get-plugins';

export function getPlugin(id: string): Promise<AdminPlugin> {
  return apiClient.get<AdminPlugin>(adminApiPaths.plugin(id));
}

export function usePlugin(id: string | null) {
  return useQuery({
    queryKey: adminKeys.plugin(id ?? ''),
    queryFn: () => getPlugin(id ?? ''),
    enabled: !!id,
  });
}
