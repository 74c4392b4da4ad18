import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MASKED_SECRET } from '@cc/contracts';
import type { ConfigInput } from '@cc/contracts';
import { joinSettings } from '../presenters/user.presenter';
import { settingsRepository } from '../repositories/settings.repository';
import { userSettingRepository } from '../repositories/user-setting.repository';
import { sealedCustomKey } from '../services/user-settings';
import { updateUserSettings } from '../services/user.service';
import { createSecretBox } from '../services/secret-box';
import { ADMIN, freshDatabase, openTestApp } from '../test/harness';
import type { TestApp, TestDatabase } from '../test/harness';
import { LEGACY_SECRETS_FILE, STORED_SECRETS_KEY, deriveKeys } from './secrets';

let database: TestDatabase;
beforeEach(async () => {
  database = await freshDatabase();
});
afterEach(() => database.drop());

const API_KEY = 'sk-kept-across-restarts-0123';

/** Opens an app on the test database, runs `body`, closes it (the database stays for the next one). */
async function withApp<T>(config: ConfigInput, body: (t: TestApp) => Promise<T>): Promise<T> {
  const t = await openTestApp(database, config, undefined, { demo: false });
  try {
    return await body(t);
  } finally {
    await t.close();
  }
}

async function saveApiKey(t: TestApp, cookie: string): Promise<void> {
  const res = await t.app.inject({
    method: 'PUT',
    url: '/api/system/credentials',
    headers: { cookie },
    payload: { openai_api_key: API_KEY },
  });
  expect(res.statusCode, res.body).toBe(200);
}

async function me(t: TestApp, cookie: string): Promise<number> {
  return (await t.app.inject({ url: '/api/user/me', headers: { cookie } })).statusCode;
}

describe('session and credential keys', () => {
  it('keeps them in the database, not in the data directory: a restart keeps sessions and credentials', async () => {
    const cookie = await withApp({}, async (t) => {
      const c = await t.login(ADMIN.username, ADMIN.password);
      await saveApiKey(t, c);
      return c;
    });
    expect(existsSync(path.join(database.dataDir, LEGACY_SECRETS_FILE))).toBe(false);
    await withApp({}, async (t) => {
      expect(await me(t, cookie)).toBe(200);
      expect(t.ctx.upstream.credentials().openai_api_key).toBe(API_KEY);
    });
  });

  it("adopts an existing install's secrets.json: its sessions and credentials stay valid", async () => {
    const old = { sessionKey: 'a'.repeat(64), credentialsKey: 'b'.repeat(64) };
    // An install from before: the keys of secrets.json signed the sessions and sealed the credentials.
    const cookie = await withApp(
      { auth: { jwt_secret: old.sessionKey, user_secret: old.credentialsKey } },
      async (t) => {
        const c = await t.login(ADMIN.username, ADMIN.password);
        await saveApiKey(t, c);
        return c;
      },
    );
    await withApp({}, async (t) => {
      await t.ctx.dbHandle.db.deleteFrom('settings').where('key', '=', STORED_SECRETS_KEY).execute();
    });
    writeFileSync(path.join(database.dataDir, LEGACY_SECRETS_FILE), JSON.stringify(old), { mode: 0o600 });

    await withApp({}, async (t) => {
      expect(t.ctx.secrets).toMatchObject(old);
      expect(await me(t, cookie)).toBe(200);
      expect(t.ctx.upstream.credentials().openai_api_key).toBe(API_KEY);
      const stored = await settingsRepository(t.ctx.dbHandle.db).get(STORED_SECRETS_KEY);
      expect(JSON.parse(stored ?? 'null')).toEqual(old);
    });
  });

  it('reads what an instance sealed under its own secrets.json before the keys were shared, and seals it again', async () => {
    const shared = await withApp({}, (t) => Promise.resolve(t.ctx.secrets));
    // This data directory's own keys, not the database's: they sealed the credentials saved through it.
    const own = { sessionKey: 'c'.repeat(64), credentialsKey: 'd'.repeat(64) };
    writeFileSync(path.join(database.dataDir, LEGACY_SECRETS_FILE), JSON.stringify(own), { mode: 0o600 });
    await withApp({}, async (t) => {
      const sealed = createSecretBox(own.credentialsKey).seal(
        JSON.stringify({ openai_web_access_token: null, openai_api_key: API_KEY }),
      );
      await settingsRepository(t.ctx.dbHandle.db).put('credentials', sealed);
    });
    await withApp({}, async (t) => {
      expect(t.ctx.secrets).toMatchObject({
        sessionKey: shared.sessionKey,
        credentialsKey: shared.credentialsKey,
      });
      expect(t.ctx.upstream.credentials().openai_api_key).toBe(API_KEY);
      const sealed = await settingsRepository(t.ctx.dbHandle.db).get('credentials');
      expect(createSecretBox(shared.credentialsKey).open(sealed ?? '')).toContain(API_KEY);
    });
  });

  it('boots with credentials no key opens: logged, treated as unset, readable as unset, savable again', async () => {
    await withApp({}, async (t) => {
      const foreign = createSecretBox('some-other-instance-key').seal(
        JSON.stringify({ openai_api_key: 'x' }),
      );
      await settingsRepository(t.ctx.dbHandle.db).put('credentials', foreign);
    });
    await withApp({}, async (t) => {
      expect(t.ctx.upstream.credentials()).toEqual({ openai_web_access_token: null, openai_api_key: null });
      const cookie = await t.login(ADMIN.username, ADMIN.password);
      const read = await t.app.inject({ url: '/api/system/credentials', headers: { cookie } });
      expect(read.statusCode, read.body).toBe(200);
      expect(read.json().result).toEqual({ openai_web_access_token: null, openai_api_key: null });
      await saveApiKey(t, cookie);
      expect(t.ctx.upstream.credentials().openai_api_key).toBe(API_KEY);
    });
  });

  it('derives both keys from auth.secret_key; rotating it keeps sessions and re-seals the credentials', async () => {
    const first = 'first-master-key-0123456789';
    const second = 'second-master-key-0123456789';
    // Moving from generated keys to a master key: the generated ones stay readable.
    const generatedCookie = await withApp({}, async (t) => {
      const c = await t.login(ADMIN.username, ADMIN.password);
      await saveApiKey(t, c);
      return c;
    });
    let userId = 0;
    const cookie = await withApp({ auth: { secret_key: first } }, async (t) => {
      expect(t.ctx.secrets).toMatchObject(deriveKeys(first));
      expect(await me(t, generatedCookie)).toBe(200);
      expect(t.ctx.upstream.credentials().openai_api_key).toBe(API_KEY);
      // A user's own API key, sealed under the first master key.
      const u = await t.createUser();
      const s = joinSettings(u.setting, u.counters);
      s.openai_api.custom_openai_api_settings = { url: 'https://llm.example/v1/', key: 'sk-user-own-key' };
      await updateUserSettings(t.ctx, u.row.id, s);
      userId = u.row.id;
      return t.login(ADMIN.username, ADMIN.password);
    });
    await withApp({ auth: { secret_key: second, previous_secret_key: first } }, async (t) => {
      expect(await me(t, cookie)).toBe(200);
      expect(t.ctx.upstream.credentials().openai_api_key).toBe(API_KEY);
      const sealed = await settingsRepository(t.ctx.dbHandle.db).get('credentials');
      // Sealed again under the new key alone.
      const onlyNew = createSecretBox(deriveKeys(second).credentialsKey);
      expect(onlyNew.open(sealed ?? '')).toContain(API_KEY);
      const row = await userSettingRepository(t.ctx.dbHandle.db).findByUserId(userId);
      expect(onlyNew.open(sealedCustomKey(row!) ?? '')).toBe('sk-user-own-key');
      const read = await t.app.inject({ url: '/api/system/config', headers: { cookie } });
      expect(read.json().result.auth).toMatchObject({
        secret_key: MASKED_SECRET,
        previous_secret_key: MASKED_SECRET,
      });
      expect(read.body).not.toContain(second);
    });
  });
});
