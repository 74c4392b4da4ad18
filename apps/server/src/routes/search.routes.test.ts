import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskResponse, ConversationSearchHit } from '@cc/contracts';
import { messageText } from '@cc/contracts';
import { ask } from '../test/chat-client';
import { ADMIN, createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';

let t: TestApp;
let url: string;
let admin: string;
let owner: string;
let other: string;

beforeAll(async () => {
  t = await createTestApp();
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  admin = await t.login(ADMIN.username, ADMIN.password);
  const o = await t.createUser();
  const x = await t.createUser();
  owner = await t.login(o.row.username, o.password);
  other = await t.login(x.row.username, x.password);
});
afterAll(() => t.close());

type Msg = { id: string; role: string; parent: string | null; content: unknown };
type Asked = { conversationId: string; question: string; answer: string; answerText: string };

/** Asks on the API source and returns the stored question and answer ids and the answer's final text. */
async function askText(
  cookie: string,
  text: string,
  follow?: { conversationId: string; parent: string | null; action?: 'next' | 'variant' },
): Promise<Asked> {
  const r = await ask(
    url,
    {
      source: 'openai_api',
      model: 'gpt_3_5',
      new_conversation: !follow,
      conversation_id: follow?.conversationId,
      parent: follow?.parent,
      action: follow?.action,
      text_content: text,
      new_title: follow ? undefined : 'Chat',
    },
    { cookie },
  );
  expect([r.code, r.reason]).toEqual([1000, 'tips.finished']);
  const last = r.frames
    .filter((f): f is Extract<AskResponse, { type: 'message' }> => f.type === 'message')
    .at(-1)!;
  const history = (await get(`/api/conv/${last.conversation_id}`, cookie)).json().result as {
    mapping: Record<string, Msg>;
    current_node: string;
  };
  const answer = history.mapping[history.current_node]!;
  return {
    conversationId: last.conversation_id,
    question: answer.parent!,
    answer: answer.id,
    answerText: messageText(answer as Parameters<typeof messageText>[0]),
  };
}

const get = (path: string, cookie: string) => t.app.inject({ method: 'GET', url: path, headers: { cookie } });

async function search(q: string, cookie = owner): Promise<ConversationSearchHit[]> {
  const res = await get(`/api/conv/search?q=${encodeURIComponent(q)}`, cookie);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result as ConversationSearchHit[];
}

const highlighted = (hit: ConversationSearchHit) => hit.highlights.map(([s, e]) => hit.snippet.slice(s, e));

describe('GET /api/conv/search', () => {
  it('finds an English word case-insensitively and a two-character Chinese word, with highlight offsets', async () => {
    const en = await askText(owner, 'Tell me about the Quixotic lighthouse keeper');
    const zh = await askText(owner, '巴黎是法国的首都吗？请介绍一下巴黎的历史');

    const english = await search('quixotic');
    const question = english.find((h) => h.message_id === en.question)!;
    expect(question).toMatchObject({ conversation_id: en.conversationId, role: 'user', title: 'Chat' });
    expect(highlighted(question)).toEqual(['Quixotic']);
    // The answer quotes the question: found as well, once per message.
    expect(english.filter((h) => h.message_id === en.answer)).toHaveLength(1);

    const chinese = await search('巴黎');
    const zhQuestion = chinese.find((h) => h.message_id === zh.question)!;
    expect(zhQuestion.role).toBe('user');
    expect(highlighted(zhQuestion)).toEqual(['巴黎', '巴黎']);
    // Three characters or more go through the trigram index.
    expect((await search('法国的首都')).map((h) => h.message_id)).toContain(zh.question);
    // One character.
    expect((await search('巴')).map((h) => h.message_id)).toContain(zh.question);
    expect((await search('Q')).map((h) => h.message_id)).toContain(en.question);
  });

  it("finds titles; never another user's conversations nor deleted ones", async () => {
    const mine = await askText(owner, 'A question about zeppelins');
    const theirs = await askText(other, 'Another question about zeppelins');
    const ids = (await search('zeppelin')).map((h) => h.conversation_id);
    expect(ids).toContain(mine.conversationId);
    expect(ids).not.toContain(theirs.conversationId);

    const renamed = await t.app.inject({
      method: 'PATCH',
      url: `/api/conv/${mine.conversationId}?title=${encodeURIComponent('Airship notes')}`,
      headers: { cookie: owner },
    });
    expect(renamed.statusCode).toBe(200);
    const title = (await search('airship')).find((h) => h.message_id === null)!;
    expect(title).toMatchObject({ conversation_id: mine.conversationId, snippet: 'Airship notes' });
    expect(title.highlights).toEqual([[0, 7]]);

    expect(
      (
        await t.app.inject({
          method: 'DELETE',
          url: `/api/conv/${mine.conversationId}`,
          headers: { cookie: owner },
        })
      ).statusCode,
    ).toBe(200);
    expect(await search('zeppelin')).toEqual([]);
    expect(await search('airship')).toEqual([]);
  });

  it('indexes the final text of an answer, edited questions and regenerated answers; drops a vanished conversation', async () => {
    const first = await askText(owner, 'What is a marmoset');
    // The end of the final answer text (the answer is written several times while it streams).
    const tail = first.answerText.slice(-20).trim();
    const tailHits = (await search(tail)).map((h) => h.message_id);
    expect(tailHits.filter((id) => id === first.answer)).toHaveLength(1);

    // An edited question is a new message beside the old one; both stay searchable.
    const edited = await askText(owner, 'What is a capybara', {
      conversationId: first.conversationId,
      parent: null,
    });
    expect((await search('capybara')).map((h) => h.message_id).sort()).toEqual(
      [edited.question, edited.answer].sort(),
    );
    expect((await search('marmoset')).map((h) => h.message_id)).toContain(first.question);

    // A regenerated answer is found as well as the first one.
    const again = await askText(owner, 'What is a capybara', {
      conversationId: first.conversationId,
      parent: edited.question,
      action: 'variant',
    });
    expect(again.answer).not.toBe(edited.answer);
    expect((await search('capybara')).map((h) => h.message_id)).toEqual(
      expect.arrayContaining([edited.answer, again.answer]),
    );

    const vanished = await t.app.inject({
      method: 'DELETE',
      url: `/api/conv/${first.conversationId}/vanish`,
      headers: { cookie: admin },
    });
    expect(vanished.statusCode).toBe(200);
    expect(await search('capybara')).toEqual([]);
    if (t.ctx.dbHandle.dialect === 'sqlite') {
      const left = await t.ctx.dbHandle.db
        .selectFrom('message_search')
        .select('message_id')
        .where('conversation_id', '=', first.conversationId)
        .execute();
      expect(left).toEqual([]);
    }
  });

  it('re-indexes a message whose text changes, and only then', async () => {
    const asked = await askText(owner, 'Notes about a pangolin');
    const { messageRepository } = await import('../repositories/message.repository');
    const repo = messageRepository(t.ctx.dbHandle.db);
    const row = (await repo.findById(asked.question))!;
    await repo.upsert([{ ...row, text: 'Notes about an armadillo' }]);
    expect(await search('pangolin').then((h) => h.map((x) => x.message_id))).not.toContain(asked.question);
    expect((await search('armadillo')).map((h) => h.message_id)).toEqual([asked.question]);
  });

  it('refuses a blank, too long or badly limited query with 422', async () => {
    for (const query of ['q=', 'q=%20%20', `q=${'x'.repeat(201)}`, 'q=a&limit=0', 'q=a&limit=51', '']) {
      const res = await get(`/api/conv/search?${query}`, owner);
      expect(res.statusCode, query).toBe(422);
      expect(res.json()).toMatchObject({ code: 422, message: 'errors.invalidParams' });
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/conv/search?q=x' })).statusCode).toBe(401);
  });

  it('drops a NUL from the query (vixen\\0 searches vixen); NULs alone are refused like a blank query', async () => {
    const asked = await askText(owner, 'The nimble vixen crossed the road');
    for (const q of ['vixen\0', 'vi\0xen', '\0vixen\0', 'vi\0', 'ab\0']) {
      const res = await get(`/api/conv/search?q=${encodeURIComponent(q)}`, owner);
      expect(res.statusCode, `${JSON.stringify(q)}: ${res.body}`).toBe(200);
      if (!q.startsWith('ab'))
        expect(
          (res.json().result as ConversationSearchHit[]).map((h) => h.message_id),
          JSON.stringify(q),
        ).toContain(asked.question);
    }
    for (const query of ['q=%00', 'q=%00%00%00', 'q=%20%00%20']) {
      const res = await get(`/api/conv/search?${query}`, owner);
      expect(res.statusCode, query).toBe(422);
      expect(res.json()).toMatchObject({ code: 422, message: 'errors.invalidParams' });
    }
    for (const q of ['vixen%00', 'vi%00', '%00vixen']) {
      const res = await get(`/api/conv/all?q=${q}`, admin);
      expect(res.statusCode, `${q}: ${res.body}`).toBe(200);
      expect(
        (res.json().result as { conversation_id: string }[]).map((c) => c.conversation_id),
        q,
      ).toContain(asked.conversationId);
    }
    expect((await get('/api/conv/all?q=%00%00%00', admin)).statusCode).toBe(422);
  });

  it('finds a title by its letters outside ASCII in any case', async () => {
    const asked = await askText(owner, 'A plain question');
    const renamed = await t.app.inject({
      method: 'PATCH',
      url: `/api/conv/${asked.conversationId}?title=${encodeURIComponent('Ünïcödé ÄÖÜ Straße 巴黎 Emoji')}`,
      headers: { cookie: owner },
    });
    expect(renamed.statusCode).toBe(200);
    for (const q of ['Ünïcödé', 'ünïcödé', 'ÜNÏCÖDÉ', 'ÄÖÜ', 'äöü', 'Ö', 'Straße', 'Emoji', '巴']) {
      const title = (await search(q)).find((h) => h.message_id === null);
      expect(title, q).toMatchObject({ conversation_id: asked.conversationId });
      const marks = highlighted(title!);
      expect(marks.length, q).toBeGreaterThan(0);
      for (const mark of marks) expect(mark.toLowerCase(), q).toBe(q.toLowerCase());
      const listed = await get(`/api/conv/all?q=${encodeURIComponent(q)}`, admin);
      expect(
        (listed.json().result as { conversation_id: string }[]).map((c) => c.conversation_id),
        q,
      ).toContain(asked.conversationId);
    }
  });

  it('finds one or two letters outside ASCII in message text in any case (not searched through the trigram index)', async () => {
    const asked = await askText(owner, 'ÄRGER im Büro');
    for (const q of ['ä', 'Ä', 'äR', 'Ür']) {
      expect(
        (await search(q)).map((h) => h.message_id),
        q,
      ).toContain(asked.question);
      const listed = await get(`/api/conv/all?q=${encodeURIComponent(q)}`, admin);
      expect(
        (listed.json().result as { conversation_id: string }[]).map((c) => c.conversation_id),
        q,
      ).toContain(asked.conversationId);
    }
  });

  it('admin list: q searches titles and message text on the server', async () => {
    const asked = await askText(other, 'Facts about the okapi, please');
    const res = await get('/api/conv/all?q=OKAPI', admin);
    expect(res.statusCode).toBe(200);
    expect((res.json().result as { conversation_id: string }[]).map((c) => c.conversation_id)).toEqual([
      asked.conversationId,
    ]);
    const short = await get(`/api/conv/all?q=${encodeURIComponent('ok')}`, admin);
    expect((short.json().result as { conversation_id: string }[]).map((c) => c.conversation_id)).toContain(
      asked.conversationId,
    );
    const byId = await get(`/api/conv/all?q=${asked.conversationId.slice(0, 8)}`, admin);
    expect((byId.json().result as { conversation_id: string }[]).map((c) => c.conversation_id)).toEqual([
      asked.conversationId,
    ]);
  });
});
