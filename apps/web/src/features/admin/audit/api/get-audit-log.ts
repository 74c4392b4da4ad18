import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { AuditPage } from '@cc/contracts';
import type { AuditQuery } from '../../../../config/admin-paths';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

export function getAuditLog(query: AuditQuery): Promise<AuditPage> {
  return apiClient.get<AuditPage>(adminApiPaths.audit(query));
}

/** A page of audit entries, newest first, and how many match the filters in all. */
export function useAuditLog(query: AuditQuery) {
  return useQuery({
    queryKey: adminKeys.audit(query),
    queryFn: () => getAuditLog(query),
    placeholderData: keepPreviousData,
  });
}
