import { DEFAULT_NEW_USER_API, DEFAULT_NEW_USER_WEB } from '@cc/contracts';
import type { UserReadAdmin } from '@cc/contracts';

/** A user as GET /api/user returns it, for the admin unit tests. */
export function adminUser(overrides: Partial<UserReadAdmin> = {}): UserReadAdmin {
  return {
    id: 7,
    email: 'ann@example.com',
    is_active: true,
    is_superuser: false,
    is_verified: false,
    username: 'ann',
    nickname: 'Ann',
    last_active_time: null,
    create_time: '2026-01-01T00:00:00Z',
    avatar: null,
    remark: null,
    password_reset_required: false,
    group_id: null,
    setting: {
      id: 1,
      user_id: 7,
      credits: -1,
      daily_budget: -1,
      monthly_budget: -1,
      openai_web_chat_status: 'idling',
      openai_web: structuredClone(DEFAULT_NEW_USER_WEB),
      openai_api: structuredClone(DEFAULT_NEW_USER_API),
    },
    ...overrides,
  };
}
