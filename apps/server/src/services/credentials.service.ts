import type { FastifyBaseLogger } from 'fastify';
import { Credentials } from '@cc/contracts';
import type { DbHandle } from '../db/client';
import type { StoredApi } from '../presenters/user.presenter';
import { settingsRepository } from '../repositories/settings.repository';
import { userSettingRepository } from '../repositories/user-setting.repository';
import type { SecretBox } from './secret-box';

const KEY = 'credentials';

/** What reading and writing the credentials needs (a part of the app context, available before it is built). */
export interface CredentialsDeps {
  dbHandle: DbHandle;
  secretBox: SecretBox;
  log: FastifyBaseLogger;
}

const UNSET: Credentials = { openai_web_access_token: null, openai_api_key: null };

/**
 * Upstream credentials, sealed at rest in the shared settings table (write-only through the API). Credentials
 * that no key of this instance opens (sealed under a key it was not given) count as unset, with a warning: a
 * key mismatch must not stop the server or fail every request.
 */
export async function loadCredentials(ctx: CredentialsDeps): Promise<Credentials> {
  const sealed = await settingsRepository(ctx.dbHandle.db).get(KEY);
  if (!sealed) return Credentials.parse({});
  try {
    return Credentials.parse(JSON.parse(ctx.secretBox.open(sealed)));
  } catch (err) {
    ctx.log.warn(
      { err },
      "The stored upstream credentials cannot be decrypted with this instance's key (auth.secret_key, or the " +
        'keys in the database): they count as unset until they are saved again or the right key is configured',
    );
    return UNSET;
  }
}

export async function saveCredentials(ctx: CredentialsDeps, value: Credentials): Promise<void> {
  await settingsRepository(ctx.dbHandle.db).put(KEY, ctx.secretBox.seal(JSON.stringify(value)));
}

/**
 * Seals the stored credentials again with the current key when a previous key sealed them (key rotation).
 * Conditional on the stored value, so a change saved meanwhile by another instance is never overwritten.
 */
async function resealSharedCredentials(ctx: CredentialsDeps): Promise<boolean> {
  const repo = settingsRepository(ctx.dbHandle.db);
  const sealed = await repo.get(KEY);
  if (!sealed) return false;
  let opened: { plain: string; stale: boolean };
  try {
    opened = ctx.secretBox.unseal(sealed);
  } catch {
    return false; // loadCredentials says why.
  }
  if (!opened.stale) return false;
  return repo.replaceIf(KEY, sealed, ctx.secretBox.seal(opened.plain));
}

/** Users' custom API keys sealed under a previous key, sealed again with the current one (conditionally, too). */
async function resealUserKeys(ctx: CredentialsDeps): Promise<number> {
  const repo = userSettingRepository(ctx.dbHandle.db);
  let count = 0;
  for (const row of await repo.listApiSettings()) {
    const api = JSON.parse(row.openai_api) as StoredApi;
    const sealed = api.custom_openai_api_settings.key;
    if (!sealed) continue;
    let opened: { plain: string; stale: boolean };
    try {
      opened = ctx.secretBox.unseal(sealed);
    } catch {
      ctx.log.warn(
        { userId: row.user_id },
        "A user's custom API key cannot be decrypted with this instance's key",
      );
      continue;
    }
    if (!opened.stale) continue;
    api.custom_openai_api_settings = {
      ...api.custom_openai_api_settings,
      key: ctx.secretBox.seal(opened.plain),
    };
    if (await repo.replaceApiSettingsIf(row.user_id, row.openai_api, JSON.stringify(api))) count += 1;
  }
  return count;
}

/**
 * After a key rotation (a previous key is configured, or the database's generated keys gave way to a master
 * key): seals what the previous keys sealed again with the current key, so the previous key can then be removed.
 * Returns how many values were sealed again.
 */
export async function resealStoredSecrets(ctx: CredentialsDeps, hasPreviousKeys: boolean): Promise<number> {
  if (!hasPreviousKeys) return 0;
  const shared = (await resealSharedCredentials(ctx)) ? 1 : 0;
  return shared + (await resealUserKeys(ctx));
}
