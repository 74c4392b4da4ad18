import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { UserReadAdmin, UserSettingUpdate } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { queryKeys } from '../../../../lib/query-keys';
import { adminKeys } from '../../shared/query-keys';

/** Replaces the whole setting (both sources, credits); `openai_web_chat_status: 'idling'` resets a stuck user. */
export function updateUserSetting(input: { id: number; setting: UserSettingUpdate }): Promise<UserReadAdmin> {
  return apiClient.patch<UserReadAdmin>(adminApiPaths.userSetting(input.id), { body: input.setting });
}

export function useUpdateUserSetting() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: updateUserSetting,
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: adminKeys.users });
      await client.invalidateQueries({ queryKey: queryKeys.me });
    },
  });
}
