import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { WEB_MODELS } from '@cc/contracts';
import type { SystemInfo, UserRead } from '@cc/contracts';
import { loadConfig } from './config/bootstrap';
import { closeContext, createContext, demoEmulatorPort } from './context';
import { joinSettings } from './presenters/user.presenter';
import { updateUserSettings } from './services/user.service';
import { ask } from './test/chat-client';
import { ADMIN, createTestApp, freshDatabase } from './test/harness';
import type { TestApp } from './test/harness';

/** Listens on a free port of 127.0.0.1 (Q) whose predecessor (Q - 1) can serve as the app's port. */
async function occupyPort(): Promise<{ port: number; server: Server }> {
  for (;;) {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    const port = (server.address() as { port: number }).port;
    if (port > 1024) return { port, server };
    server.close();
  }
}
const release = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));
const portOf = (url: string) => Number(new URL(url).port);

const opened: TestApp[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((t) => t.close()));
});
async function app(...args: Parameters<typeof createTestApp>): Promise<TestApp> {
  const t = await createTestApp(...args);
  opened.push(t);
  return t;
}

describe('demo mode: where the emulator listens', () => {
  it("is the port after the app's", () => {
    expect(demoEmulatorPort(8000)).toBe(8001);
    expect(demoEmulatorPort(65535)).toBe(0);
  });

  it("listens on the app's port + 1", async () => {
    // A port that is free right now, and the app configured just below it.
    const { port, server } = await occupyPort();
    await release(server);
    const t = await app({ http: { port: port - 1 } }, undefined, { demoPort: undefined });
    expect(portOf(t.ctx.demo!.emulator.url)).toBe(port);
  });

  it('takes any free port when that one is taken, and the notice says which', async () => {
    const { port, server } = await occupyPort();
    const database = await freshDatabase();
    const lines: string[] = [];
    const log = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    const config = loadConfig(
      { CC_DATA_DIR: database.dataDir },
      {
        overrides: {
          http: { port: port - 1 },
          data: { database_url: database.url, redis_url: null },
          common: { initial_admin_user_password: ADMIN.password },
        },
      },
    );
    const ctx = await createContext(config, log);
    try {
      const url = ctx.demo!.emulator.url;
      expect(portOf(url)).not.toBe(port);
      const notice = lines
        .map((l) => (JSON.parse(l) as { msg: string }).msg)
        .find((m) => m.startsWith('Demo mode'));
      expect(notice).toContain(`${url} (port ${port} was taken)`);
      for (const prompt of ['#browse', '#code', '#dalle', '#plugin', '#long', '#error', '#fault:'])
        expect(notice).toContain(prompt);
    } finally {
      await closeContext(ctx);
      await release(server);
      await database.drop();
    }
  });
});

describe('demo mode: what it enables', () => {
  const me = async (t: TestApp, cookie: string) => {
    const res = await t.app.inject({ url: '/api/user/me', headers: { cookie } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ result: UserRead }>().result;
  };
  const info = async (t: TestApp) => {
    const res = await t.app.inject({
      url: '/api/system/info',
      headers: { cookie: await t.login(ADMIN.username, ADMIN.password) },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ result: SystemInfo }>().result;
  };

  it('every web model, DALL·E included, whatever openai_web.enabled_models says', async () => {
    const t = await app({ openai_web: { enabled_models: ['gpt_3_5'] } });
    const admin = await me(t, await t.login(ADMIN.username, ADMIN.password));
    expect(admin.setting.openai_web.available_models).toEqual([...WEB_MODELS]);

    const user = await t.createUser();
    const settings = joinSettings(user.setting, user.counters);
    settings.openai_web.available_models = ['gpt_4_dalle'];
    await updateUserSettings(t.ctx, user.row.id, settings);
    const url = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const r = await ask(
      url,
      {
        source: 'openai_web',
        model: 'gpt_4_dalle',
        new_conversation: true,
        text_content: '#dalle a red boat',
      },
      { cookie: await t.login(user.row.username, user.password) },
    );
    expect(r.frames.filter((f) => f.type === 'error')).toEqual([]);
    expect(r.code).toBe(1000);
    const messages = r.frames.flatMap((f) => (f.type === 'message' && f.message ? [f.message] : []));
    // The emulator's DALL·E scenario went through: the model's call to the image tool, answered as gpt_4_dalle.
    const toolCall = (m: (typeof messages)[number]) =>
      (m.metadata as { recipient?: string } | null)?.recipient;
    expect(messages.some((m) => m.model === 'gpt_4_dalle' && toolCall(m) === 'dalle.text2im')).toBe(true);
  });

  it('not once a real upstream is configured for the web source', async () => {
    const t = await app({
      openai_web: { enabled_models: ['gpt_3_5'], chatgpt_base_url: 'http://127.0.0.1:9/backend-api/' },
    });
    const admin = await me(t, await t.login(ADMIN.username, ADMIN.password));
    expect(admin.setting.openai_web.available_models).toEqual(['gpt_3_5']);
    // The API source still runs on the emulator: demo mode for that one only.
    expect((await info(t)).demo).toEqual({ sources: ['openai_api'], emulator_url: t.ctx.demo!.emulator.url });
  });

  it('system info tells the admin, with the emulator address; null without demo mode', async () => {
    const demo = await app();
    expect((await info(demo)).demo).toEqual({
      sources: ['openai_web', 'openai_api'],
      emulator_url: demo.ctx.demo!.emulator.url,
    });
    const real = await app({}, undefined, { demo: false });
    expect((await info(real)).demo).toBeNull();
  });
});
