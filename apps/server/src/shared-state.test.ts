import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MASKED_SECRET } from '@cc/contracts';
import type { ConfigWrite, PluginList, UploadedFileInfo } from '@cc/contracts';
import { startEmulator } from '@cc/upstream-emulator';
import type { SharedChange } from './coordination/changes';
import { ADMIN, createTestApp, freshDatabase, openTestApp } from './test/harness';
import type { TestApp, TestDatabase } from './test/harness';
import { dropRedisKeys, testRedisPrefix } from './test/redis-keys';
import { multipartFile } from './test/upload';

const API_KEY = 'sk-saved-on-a-0123456789';

/** Resolves when `t` has applied a change announced by another instance. */
function nextApplied(t: TestApp, change: SharedChange): Promise<void> {
  const changes = t.ctx.coordination.changes;
  return new Promise((resolve) => {
    const listener = (c: SharedChange) => {
      if (c !== change) return;
      changes.off('applied', listener);
      resolve();
    };
    changes.on('applied', listener);
  });
}

const tempDir = () => mkdtempSync(path.join(tmpdir(), 'cc-instance-'));

describe('a change when Redis does not take the notification', () => {
  it('is saved and in force all the same, with a warning', async () => {
    const t = await createTestApp({}, undefined, { demo: false });
    try {
      vi.spyOn(t.ctx.coordination.changes, 'publish').mockRejectedValue(new Error('Redis is down'));
      const warn = vi.spyOn(t.ctx.log, 'warn');
      const cookie = await t.login(ADMIN.username, ADMIN.password);
      const res = await t.app.inject({
        method: 'PUT',
        url: '/api/system/credentials',
        headers: { cookie },
        payload: { openai_api_key: API_KEY },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(t.ctx.upstream.credentials().openai_api_key).toBe(API_KEY);
      await vi.waitFor(() =>
        expect(warn).toHaveBeenCalledWith(
          expect.objectContaining({ change: 'credentials' }),
          'A settings change was not announced to the other instances',
        ),
      );
    } finally {
      await t.close();
    }
  });
});

describe.runIf(!!process.env.CC_TEST_DATABASE_URL && !!process.env.CC_TEST_REDIS_URL)(
  'two instances on one database and one Redis prefix, each with its own data directory',
  () => {
    let database: TestDatabase;
    const uploads = tempDir();
    const dirs: string[] = [uploads];
    const prefix = testRedisPrefix();
    let a: TestApp;
    let b: TestApp;

    async function instance(db: Pick<TestDatabase, 'url'> = database): Promise<TestApp> {
      const dataDir = tempDir();
      dirs.push(dataDir);
      const t = await openTestApp(
        { url: db.url, dataDir },
        { data: { redis_prefix: prefix, uploads_dir: uploads } },
        undefined,
        { demo: false },
      );
      await t.ctx.coordination.changes.listening;
      return t;
    }

    beforeAll(async () => {
      database = await freshDatabase();
      a = await instance();
      b = await instance();
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
      await dropRedisKeys(process.env.CC_TEST_REDIS_URL!, prefix);
      await database.drop();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });

    it('share the session and credential keys: a session opened on A works on B', async () => {
      expect(b.ctx.secrets).toEqual(a.ctx.secrets);
      const cookie = await a.login(ADMIN.username, ADMIN.password);
      const me = await b.app.inject({ url: '/api/user/me', headers: { cookie } });
      expect(me.statusCode, me.body).toBe(200);
    });

    it('credentials saved on A are in force on B at once, and after B restarts', async () => {
      const cookie = await a.login(ADMIN.username, ADMIN.password);
      const applied = nextApplied(b, 'credentials');
      const saved = await a.app.inject({
        method: 'PUT',
        url: '/api/system/credentials',
        headers: { cookie },
        payload: { openai_api_key: API_KEY },
      });
      expect(saved.statusCode, saved.body).toBe(200);
      await applied;
      expect(b.ctx.upstream.credentials().openai_api_key).toBe(API_KEY);
      const read = await b.app.inject({ url: '/api/system/credentials', headers: { cookie } });
      expect(read.statusCode, read.body).toBe(200);
      expect(read.json().result).toMatchObject({ openai_api_key: MASKED_SECRET });

      await b.close();
      b = await instance();
      expect(b.ctx.upstream.credentials().openai_api_key).toBe(API_KEY);
    });

    /** Saves the config through A (as the admin console does) and resolves once B has applied it. */
    async function changeConfigOnA(cookie: string, edit: (config: ConfigWrite) => void): Promise<void> {
      const config = (await a.app.inject({ url: '/api/system/config', headers: { cookie } })).json()
        .result as ConfigWrite;
      edit(config);
      const applied = nextApplied(b, 'config');
      const saved = await a.app.inject({
        method: 'PUT',
        url: '/api/system/config',
        headers: { cookie },
        payload: config,
      });
      expect(saved.statusCode, saved.body).toBe(200);
      await applied;
    }

    it('a config change saved on A is in force on B without waiting for the periodic refresh', async () => {
      const cookie = await a.login(ADMIN.username, ADMIN.password);
      const before = b.ctx.runtime.current().openai_api.max_completion_concurrency;
      await changeConfigOnA(cookie, (c) => {
        c.openai_api.max_completion_concurrency = before + 3;
      });
      expect(b.ctx.runtime.current().openai_api.max_completion_concurrency).toBe(before + 3);
    });

    it('a server added on A is one B sends asks to', async () => {
      // A new server takes traffic once its check passes: a real upstream answers it.
      const emulator = await startEmulator();
      try {
        const { hostname, port } = new URL(emulator.apiBaseUrl);
        const cookie = await a.login(ADMIN.username, ADMIN.password);
        const applied = nextApplied(b, 'servers');
        const res = await a.app.inject({
          method: 'POST',
          url: '/api/system/addMachine',
          headers: { cookie },
          payload: {
            source: 'openai_api',
            hostname: 'api-2',
            ip_address: hostname,
            port: Number(port),
            base_path: '/v1/',
            use_tls: false,
            status: 'online',
            weight: 1,
            max_concurrency: 2,
          },
        });
        expect(res.statusCode, res.body).toBe(201);
        await applied;
        expect(b.ctx.upstream.servers('openai_api')).toEqual([
          expect.objectContaining({ baseUrl: `http://${hostname}:${port}/v1/`, capacity: 2 }),
        ]);
      } finally {
        await emulator.close();
      }
    });

    it('a file uploaded through A downloads through B (shared uploads folder)', async () => {
      const cookie = await a.login(ADMIN.username, ADMIN.password);
      await changeConfigOnA(cookie, (c) => {
        c.openai_web.file_upload_strategy = 'server_upload_only';
      });
      const bytes = randomBytes(2048);
      const form = multipartFile(bytes, { filename: 'notes.bin' });
      const up = await a.app.inject({
        method: 'POST',
        url: '/api/files/local/upload',
        headers: { ...form.headers, cookie },
        payload: form.payload,
      });
      expect(up.statusCode, up.body).toBe(201);
      const info = up.json().result as UploadedFileInfo;
      const down = await b.app.inject({ url: `/api/files/local/download/${info.id}`, headers: { cookie } });
      expect(down.statusCode).toBe(200);
      expect(down.rawPayload.equals(bytes)).toBe(true);
    });

    it('a plugin installed through A is listed by B at once (its cached list is dropped)', async () => {
      const emulator = await startEmulator();
      try {
        const cookie = await a.login(ADMIN.username, ADMIN.password);
        await changeConfigOnA(cookie, (c) => {
          c.openai_web.chatgpt_base_url = emulator.webBaseUrl;
        });
        const installed = async (t: TestApp) => {
          const res = await t.app.inject({ url: '/api/chat/openai-plugins/installed', headers: { cookie } });
          expect(res.statusCode, res.body).toBe(200);
          return (res.json().result as PluginList).items.map((p) => p.id);
        };
        const before = await installed(b); // B caches the list
        const store = await a.app.inject({ url: '/api/chat/openai-plugins/all', headers: { cookie } });
        const id = (store.json().result as PluginList).items.find((p) => !before.includes(p.id))?.id ?? '';
        const applied = nextApplied(b, 'plugins');
        const toggled = await a.app.inject({
          method: 'PATCH',
          url: `/api/chat/openai-plugins/${id}/user-settings`,
          headers: { cookie },
          payload: { is_installed: true },
        });
        expect(toggled.statusCode, toggled.body).toBe(200);
        await applied;
        expect(await installed(b)).toContain(id);
      } finally {
        await emulator.close();
      }
    });

    it('started together on an empty database, both end with the same keys', async () => {
      const empty = await freshDatabase();
      const started = await Promise.allSettled([instance(empty), instance(empty)]);
      try {
        const [x, y] = started.map((r) => (r.status === 'fulfilled' ? r.value : null));
        expect(started.filter((r) => r.status === 'rejected')).toEqual([]);
        expect(x?.ctx.secrets.sessionKey).toMatch(/^[0-9a-f]{64}$/);
        expect(y?.ctx.secrets).toEqual(x?.ctx.secrets);
        const cookie = await x!.login(ADMIN.username, ADMIN.password);
        expect((await y!.app.inject({ url: '/api/user/me', headers: { cookie } })).statusCode).toBe(200);
      } finally {
        for (const r of started) if (r.status === 'fulfilled') await r.value.close();
        await empty.drop();
      }
    });
  },
);
