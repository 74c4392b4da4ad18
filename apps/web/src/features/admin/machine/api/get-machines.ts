import { queryOptions, useQuery } from '@tanstack/react-query';
import type { MachineInfo } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

/** Every server with its live scheduler view (in flight, queue, last check, last error). */
export function getMachines(): Promise<MachineInfo[]> {
  return apiClient.get<MachineInfo[]>(adminApiPaths.machineInfo);
}

export const machinesQueryOptions = queryOptions({
  queryKey: adminKeys.machines,
  queryFn: getMachines,
  staleTime: 5_000,
});

/** Polled every 10 s while the page is open. */
export function useMachines() {
  return useQuery({ ...machinesQueryOptions, refetchInterval: 10_000 });
}
