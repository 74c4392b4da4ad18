import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskResponse, ConversationHistory } from '@cc/contracts';
import { joinSettings } from '../presenters/user.presenter';
import { userSettingRepository } from '../repositories/user-setting.repository';
import { getUser, updateUserSettings } from '../services/user.service';
import { ask } from '../test/chat-client';
import { createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';

// Input costs 0.001 a token, output nothing: what an ask reserves is what it sends.
let t: TestApp;
let url: string;
beforeAll(async () => {
  t = await createTestApp({
    billing: { prices: { gpt_3_5: { input: 1000, output: 0 } }, reserve_output_tokens: 0 },
  });
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => t.close());

const conversationOf = (frames: AskResponse[]) =>
  frames.find((f): f is Extract<AskResponse, { type: 'message' }> => f.type === 'message')!.conversation_id;

describe('admission reserves what the ask sends', () => {
  it('an API follow-up reserves its context too: refused where a new conversation still fits', async () => {
    const u = await t.createUser();
    const setting = joinSettings(u.setting, u.counters);
    setting.openai_api.rate_limits = [];
    await updateUserSettings(t.ctx, u.row.id, { ...setting, credits: 100 });
    const cookie = await t.login(u.row.username, u.password);
    const base = { source: 'openai_api', model: 'gpt_3_5' } as const;
    const first = await ask(
      url,
      { ...base, new_conversation: true, text_content: 'hi' },
      {
        cookie,
      },
    );
    expect(first.code).toBe(1000);
    const id = conversationOf(first.frames);
    const res = await t.app.inject({ url: `/api/conv/${id}`, headers: { cookie } });
    const parent = res.json<{ result: ConversationHistory }>().result.current_node!;

    // 0.05 left: a new one-word question (0.001) fits, the follow-up with the answer as context does not.
    const row = await userSettingRepository(t.ctx.dbHandle.db).findByUserId(u.row.id);
    const spent = Number(row!.spent_total) / 1e6;
    const loaded = await getUser(t.ctx, u.row.id);
    await updateUserSettings(t.ctx, u.row.id, {
      ...joinSettings(loaded.setting, loaded.counters),
      credits: spent + 0.05,
    });
    const follow = await ask(
      url,
      { ...base, new_conversation: false, conversation_id: id, parent, text_content: 'hi' },
      { cookie },
    );
    expect([follow.code, follow.reason]).toEqual([1008, 'errors.budgetSpent']);
    const fresh = await ask(
      url,
      { ...base, new_conversation: true, text_content: 'hi' },
      {
        cookie,
      },
    );
    expect(fresh.code).toBe(1000);
  });
});
