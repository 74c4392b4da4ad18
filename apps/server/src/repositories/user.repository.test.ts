import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';
import { userRepository } from './user.repository';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('userRepository.countActiveNonSuperusersSince', () => {
  it('counts non-superusers active since each time; superusers and the never active are left out', async () => {
    const repo = userRepository(t.ctx.dbHandle.db);
    const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
    const times = [ago(5), ago(60), ago(24 * 60)];
    expect(await repo.countActiveNonSuperusersSince(times)).toEqual([0, 0, 0]);

    const activeAt = async (minutesAgo: number | null, superuser = false) => {
      const u = await t.createUser({ is_superuser: superuser });
      await repo.update(u.row.id, { last_active_time: minutesAgo === null ? null : ago(minutesAgo) });
    };
    await activeAt(1);
    await activeAt(30);
    await activeAt(120);
    await activeAt(3 * 24 * 60);
    await activeAt(null);
    await activeAt(1, true);
    const admin = await repo.findByUsername(ADMIN.username);
    await repo.update(admin!.id, { last_active_time: ago(1) });

    expect(await repo.countActiveNonSuperusersSince(times)).toEqual([1, 2, 3]);
    expect(await repo.countActiveNonSuperusersSince([])).toEqual([]);
  });
});
