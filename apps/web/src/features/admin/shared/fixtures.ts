import { baseUser } from '../../../test/fixtures';
import type { UserReadAdmin } from '@cc/contracts';

/** A user as GET /api/user returns it, for the admin unit tests. */
export function adminUser(overrides: Partial<UserReadAdmin> = {}): UserReadAdmin {
  return { ...baseUser(), remark: null, password_reset_required: false, group_id: null, ...overrides };
}
