import type { UserGroupRead } from '@cc/contracts';
import type { UserGroupRow } from '../db/schema';

/** Row and member count → the group's read shape. */
export function presentGroup(g: { row: UserGroupRow; memberCount: number }): UserGroupRead {
  return {
    id: g.row.id,
    name: g.row.name,
    openai_web: JSON.parse(g.row.openai_web) as UserGroupRead['openai_web'],
    openai_api: JSON.parse(g.row.openai_api) as UserGroupRead['openai_api'],
    budgets: g.row.budgets ? (JSON.parse(g.row.budgets) as UserGroupRead['budgets']) : null,
    member_count: g.memberCount,
    create_time: g.row.create_time,
    update_time: g.row.update_time,
  };
}
