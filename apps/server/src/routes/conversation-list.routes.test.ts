import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConversationRead } from '@cc/contracts';
import { MAX_PINNED_CONVERSATIONS } from '@cc/contracts';
import { conversationRepository } from '../repositories/conversation.repository';
import { ADMIN, createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';

let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.login(ADMIN.username, ADMIN.password);
});
afterAll(() => t.close());

async function newUser(): Promise<{ id: number; cookie: string }> {
  const u = await t.createUser();
  return { id: u.row.id, cookie: await t.login(u.row.username, u.password) };
}

const BASE = Date.parse('2026-03-01T00:00:00.000Z');

/** `count` conversations of a user, updated one minute apart (every third shares its time with the next). */
async function seed(
  userId: number,
  count: number,
  extra: { is_valid?: number; source?: 'openai_web' | 'openai_api' } = {},
): Promise<string[]> {
  const repo = conversationRepository(t.ctx.dbHandle.db);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const time = new Date(BASE + (i - (i % 3 === 2 ? 1 : 0)) * 60_000).toISOString();
    const id = randomUUID();
    await repo.insert({
      conversation_id: id,
      source: extra.source ?? 'openai_api',
      title: `c${i}`,
      user_id: userId,
      is_valid: extra.is_valid ?? 1,
      is_public: 0,
      current_model: 'gpt_3_5',
      current_node: null,
      server_id: null,
      plugin_ids: null,
      create_time: time,
      update_time: time,
    });
    ids.push(id);
  }
  return ids;
}

const get = (url: string, cookie: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });
const pin = (id: string, pinned: boolean, cookie: string) =>
  t.app.inject({ method: 'PUT', url: `/api/conv/${id}/pin`, headers: { cookie }, payload: { pinned } });

/** Every page of the user's list, `limit` at a time, each after the previous page's last conversation. */
async function walk(cookie: string, limit: number): Promise<{ rows: ConversationRead[]; pages: number }> {
  const rows: ConversationRead[] = [];
  let after = '';
  for (let pages = 1; ; pages++) {
    const res = await get(`/api/conv?limit=${limit}${after ? `&after=${after}` : ''}`, cookie);
    expect(res.statusCode).toBe(200);
    const page = res.json().result as ConversationRead[];
    rows.push(...page);
    if (page.length < limit) return { rows, pages };
    after = page[page.length - 1]!.conversation_id;
  }
}

/** The list's order: pinned first, then last update (newest first), ties by id (newest first). */
function expectedOrder(rows: ConversationRead[]): string[] {
  return [...rows]
    .sort(
      (a, b) =>
        Number(b.pinned_at !== null) - Number(a.pinned_at !== null) ||
        b.update_time.localeCompare(a.update_time) ||
        b.id - a.id,
    )
    .map((r) => r.conversation_id);
}

describe('GET /api/conv pages', () => {
  it('walks 250 conversations in pages, pinned first, each once, in the full list’s order', async () => {
    const user = await newUser();
    const stranger = await newUser();
    const ids = await seed(user.id, 250);
    await seed(user.id, 3, { is_valid: 0 });
    await seed(stranger.id, 5);
    expect((await pin(ids[10]!, true, user.cookie)).statusCode).toBe(200);
    expect((await pin(ids[200]!, true, user.cookie)).statusCode).toBe(200);

    // Without a limit: every valid conversation (the original response), pinned first.
    const full = (await get('/api/conv', user.cookie)).json().result as ConversationRead[];
    expect(full).toHaveLength(250);
    expect(full.slice(0, 2).map((c) => c.conversation_id)).toEqual([ids[200], ids[10]]);
    expect(full[0]).toEqual({
      id: expect.any(Number),
      source: 'openai_api',
      conversation_id: ids[200],
      title: 'c200',
      user_id: user.id,
      is_valid: true,
      is_public: false,
      current_model: 'gpt_3_5',
      create_time: expect.any(String),
      update_time: expect.any(String),
      pinned_at: expect.any(String),
    });
    expect(full.map((c) => c.conversation_id)).toEqual(expectedOrder(full));

    const { rows, pages } = await walk(user.cookie, 60);
    expect(pages).toBe(5);
    expect(rows.map((c) => c.conversation_id)).toEqual(full.map((c) => c.conversation_id));
    expect(new Set(rows.map((c) => c.conversation_id)).size).toBe(250);
  });

  it('refuses a page size over the maximum and a page after a conversation that is not the user’s', async () => {
    const user = await newUser();
    const stranger = await newUser();
    const [theirs] = await seed(stranger.id, 1);
    expect((await get('/api/conv?limit=201', user.cookie)).json().code).toBe(422);
    expect((await get('/api/conv?limit=0', user.cookie)).json().code).toBe(422);
    expect((await get(`/api/conv?limit=10&after=${theirs}`, user.cookie)).json().code).toBe(404);
    expect((await get(`/api/conv?limit=10&after=${randomUUID()}`, user.cookie)).json().code).toBe(404);
    expect((await get('/api/conv?limit=10', user.cookie)).json().result).toEqual([]);
  });
});

describe('PUT /api/conv/{id}/pin', () => {
  it('pins and unpins the owner’s conversation; the pin is kept and moves it to the top', async () => {
    const user = await newUser();
    const ids = await seed(user.id, 5);
    const pinned = await pin(ids[0]!, true, user.cookie);
    expect(pinned.json()).toMatchObject({
      code: 200,
      result: { conversation_id: ids[0], pinned_at: expect.any(String) },
    });
    const pinnedAt = (pinned.json().result as ConversationRead).pinned_at;
    // Pinning again keeps the first pin time.
    expect((await pin(ids[0]!, true, user.cookie)).json().result.pinned_at).toBe(pinnedAt);
    const first = (await get('/api/conv?limit=2', user.cookie)).json().result as ConversationRead[];
    expect(first.map((c) => c.conversation_id)).toEqual([ids[0], ids[4]]);

    const unpinned = await pin(ids[0]!, false, user.cookie);
    expect(unpinned.json().result.pinned_at).toBeNull();
    const after = (await get('/api/conv?limit=2', user.cookie)).json().result as ConversationRead[];
    expect(after.map((c) => c.conversation_id)).toEqual([ids[4], ids[3]]);
  });

  it('is the owner’s alone: another user and a superuser are refused, a deleted one cannot be pinned', async () => {
    const user = await newUser();
    const stranger = await newUser();
    const [id, gone] = await seed(user.id, 2);
    expect((await pin(id!, true, stranger.cookie)).json().code).toBe(10403);
    expect((await pin(id!, true, admin)).json().code).toBe(10403);
    expect((await pin(randomUUID(), true, user.cookie)).json().code).toBe(404);
    expect((await pin(id!, 'yes' as unknown as boolean, user.cookie)).json().code).toBe(422);
    await conversationRepository(t.ctx.dbHandle.db).update(gone!, { is_valid: 0 });
    expect((await pin(gone!, true, user.cookie)).json()).toMatchObject({
      code: 409,
      message: 'errors.conversationAlreadyDeleted',
    });
    const row = await conversationRepository(t.ctx.dbHandle.db).findByUuid(id!);
    expect(row?.pinned_at).toBeNull();
  });

  it(`allows ${MAX_PINNED_CONVERSATIONS} pins, then says why the next one is refused`, async () => {
    const user = await newUser();
    const ids = await seed(user.id, MAX_PINNED_CONVERSATIONS + 1);
    for (const id of ids.slice(0, MAX_PINNED_CONVERSATIONS)) {
      expect((await pin(id, true, user.cookie)).statusCode).toBe(200);
    }
    const refused = await pin(ids[MAX_PINNED_CONVERSATIONS]!, true, user.cookie);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      code: 409,
      message: 'errors.tooManyPinnedConversations',
      params: { max: MAX_PINNED_CONVERSATIONS },
    });
    // A pinned one can be pinned again at the cap, and an unpin makes room.
    expect((await pin(ids[0]!, true, user.cookie)).statusCode).toBe(200);
    expect((await pin(ids[0]!, false, user.cookie)).statusCode).toBe(200);
    expect((await pin(ids[MAX_PINNED_CONVERSATIONS]!, true, user.cookie)).statusCode).toBe(200);
    // Another user's pins do not count toward this user's cap.
    const other = await newUser();
    const [theirs] = await seed(other.id, 1);
    expect((await pin(theirs!, true, other.cookie)).statusCode).toBe(200);
  });
});
