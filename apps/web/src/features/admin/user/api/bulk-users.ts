import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { UserReadAdmin, UserRef } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { queryKeys } from '../../../../lib/query-keys';
import { runBulk } from '../../shared/bulk';
import { adminKeys } from '../../shared/query-keys';
import { applySettingsPatch } from '../lib/bulk-settings';
import type { BulkSettingsPatch } from '../lib/bulk-settings';

/** One action over many users; each user is one request, a refusal is that user's failure. */
export type BulkUserAction =
  | { kind: 'activate' }
  | { kind: 'deactivate' }
  | { kind: 'resetStatus' }
  | { kind: 'delete' }
  | { kind: 'settings'; patch: BulkSettingsPatch }
  | { kind: 'group'; groupId: number | null };

/**
 * The request of one user (silent: the page shows the summary, not one toast per user). Settings are applied to
 * the user's settings as they are now (read first), not as a page showed them earlier.
 */
export async function bulkUserCall(action: BulkUserAction, user: Pick<UserRef, 'id'>): Promise<unknown> {
  const silent = true;
  switch (action.kind) {
    case 'activate':
    case 'deactivate':
      return apiClient.patch(adminApiPaths.user(user.id), {
        body: { is_active: action.kind === 'activate' },
        silent,
      });
    case 'resetStatus':
      return apiClient.post(adminApiPaths.resetChatStatus(user.id), { silent });
    case 'delete':
      return apiClient.delete(adminApiPaths.user(user.id), { silent });
    case 'group':
      return apiClient.patch(adminApiPaths.user(user.id), { body: { group_id: action.groupId }, silent });
    case 'settings': {
      const current = await apiClient.get<UserReadAdmin>(adminApiPaths.user(user.id), { silent });
      return apiClient.patch(adminApiPaths.userSetting(user.id), {
        body: applySettingsPatch(current.setting, action.patch),
        silent,
      });
    }
  }
}

export function useBulkUsers(onProgress: (finished: number, total: number) => void) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ action, users }: { action: BulkUserAction; users: UserRef[] }) =>
      runBulk(users, (user) => bulkUserCall(action, user), { onProgress }),
    onSettled: async () => {
      await client.invalidateQueries({ queryKey: adminKeys.users });
      await client.invalidateQueries({ queryKey: adminKeys.groups });
      await client.invalidateQueries({ queryKey: queryKeys.me });
    },
  });
}
