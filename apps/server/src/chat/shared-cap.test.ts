import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskResponse } from '@cc/contracts';
import { joinSettings } from '../presenters/user.presenter';
import { updateUserSettings } from '../services/user.service';
import { ask } from '../test/chat-client';
import { createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';
import { reserve, sharedCapUsed } from './quota-ledger';

let t: TestApp;
let url: string;
beforeAll(async () => {
  t = await createTestApp({ openai_web: { gpt4_cap_per_3_hours: 2 } });
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => t.close());

async function asker() {
  const u = await t.createUser();
  const s = joinSettings(u.setting, u.counters);
  s.openai_web.rate_limits = [];
  await updateUserSettings(t.ctx, u.row.id, s);
  return { id: u.row.id, cookie: await t.login(u.row.username, u.password) };
}

const errorTip = (frames: AskResponse[]) => frames.find((f) => f.type === 'error')?.tip ?? null;
const CAP = { limit: 2, windowSeconds: 3 * 3600, modelPrefix: 'gpt_4' };

describe('the shared web GPT-4 cap', () => {
  it('admits exactly the cap of five concurrent GPT-4 asks; the others get the cap error', async () => {
    const users = await Promise.all(Array.from({ length: 5 }, () => asker()));
    const results = await Promise.all(
      users.map((u) =>
        ask(
          url,
          { source: 'openai_web', model: 'gpt_4', new_conversation: true, text_content: 'hello' },
          { cookie: u.cookie },
        ),
      ),
    );
    const tips = results.map((r) => errorTip(r.frames));
    expect(tips.filter((tip) => tip === null)).toHaveLength(2);
    expect(tips.filter((tip) => tip === 'errors.noAvailableGpt4AskCount')).toHaveLength(3);
    expect(await sharedCapUsed(t.ctx.dbHandle.db, 'openai_web', CAP)).toBe(2);
    // Everyone's status shows the same count the cap uses.
    const status = await t.app.inject({ url: '/api/status/common', headers: { cookie: users[0]!.cookie } });
    expect(status.json().result.gpt4_count_in_3_hours).toBe(2);

    // The cap is reached: a sixth ask is refused before it reaches the upstream.
    const late = await ask(
      url,
      { source: 'openai_web', model: 'gpt_4', new_conversation: true, text_content: 'late' },
      { cookie: (await asker()).cookie },
    );
    expect(errorTip(late.frames)).toBe('errors.noAvailableGpt4AskCount');
  });

  it('a refunded ask gives its place under the cap back', async () => {
    const app = await createTestApp({ openai_web: { gpt4_cap_per_3_hours: 1 } }, undefined, { demo: false });
    try {
      const u = await app.createUser();
      const first = await reserve(app.ctx, u.row.id, 'openai_web', 'gpt_4', { cap: { ...CAP, limit: 1 } });
      await expect(
        reserve(app.ctx, u.row.id, 'openai_web', 'gpt_4', { cap: { ...CAP, limit: 1 } }),
      ).rejects.toMatchObject({ messageKey: 'errors.noAvailableGpt4AskCount' });
      await first.refund();
      expect(await sharedCapUsed(app.ctx.dbHandle.db, 'openai_web', CAP)).toBe(0);
      const again = await reserve(app.ctx, u.row.id, 'openai_web', 'gpt_4', { cap: { ...CAP, limit: 1 } });
      await again.settle(0);
      expect(await sharedCapUsed(app.ctx.dbHandle.db, 'openai_web', CAP)).toBe(1);
    } finally {
      await app.close();
    }
  });
});
