import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ask, until } from '../test/chat-client';
import { ADMIN, createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';

let t: TestApp;
let admin: string;
let user: { id: number; cookie: string };

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.login(ADMIN.username, ADMIN.password);
  const u = await t.createUser();
  user = { id: u.row.id, cookie: await t.login(u.row.username, u.password) };
});
afterAll(() => t.close());

const get = (url: string, cookie = admin) => t.app.inject({ method: 'GET', url, headers: { cookie } });

describe('request logs', () => {
  const recent = async () => {
    await t.app.flushRequestStats();
    return t.ctx.dbHandle.db
      .selectFrom('request_logs')
      .selectAll()
      .where('time', '>=', new Date(Date.now() - 60_000).toISOString())
      .orderBy('id')
      .execute();
  };

  it('writes one row per /api request by route template, status from the envelope, filter keywords honoured', async () => {
    await t.app.flushRequestStats();
    const since = new Date().toISOString();
    await get('/api/system/info');
    await get('/api/system/info', user.cookie); // 10403
    await get('/api/status/common', user.cookie); // filtered by the default keyword /status
    await get(`/api/conv/${randomUUID()}`, user.cookie); // 404 envelope
    await get('/api/no/such/route'); // no route: not logged
    const rows = (await recent()).filter((r) => r.time >= since);
    expect(rows.map((r) => [r.method, r.route_path, r.status, r.user_id])).toEqual([
      ['GET', '/api/system/info', 200, 1], // the initial admin is user 1
      ['GET', '/api/system/info', 10403, user.id],
      ['GET', '/api/conv/:conversation_id', 404, user.id],
    ]);
    expect(rows.every((r) => r.elapsed_ms >= 0)).toBe(true);

    // The keywords are read live.
    const config = t.ctx.runtime.current();
    await t.ctx.runtime.save({
      ...config,
      stats: { ...config.stats, request_stats_filter_keywords: ['/system/info'] },
    });
    const since2 = new Date().toISOString();
    await get('/api/system/info');
    await get('/api/status/common', user.cookie);
    const rows2 = (await recent()).filter((r) => r.time >= since2);
    expect(rows2.map((r) => r.route_path)).toEqual(['/api/status/common']);
    await t.ctx.runtime.save(config);
  });

  it('logs the chat socket as WEBSOCKET with its close code', async () => {
    const url = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const since = new Date().toISOString();
    const r = await ask(
      url,
      { source: 'openai_api', model: 'gpt_3_5', new_conversation: true, text_content: 'hello' },
      { cookie: user.cookie },
    );
    expect(r.code).toBe(1000);
    // The socket's log entry is recorded once the server has seen the close: poll for it.
    let rows: Awaited<ReturnType<typeof recent>> = [];
    await until(async () => {
      rows = (await recent()).filter((x) => x.time >= since && x.method === 'WEBSOCKET');
      return rows.length > 0;
    });
    expect(rows.map((x) => [x.route_path, x.status, x.user_id])).toEqual([['/api/chat', 1000, user.id]]);
  });
});
