import { Credentials } from '@cc/contracts';
import type { DbHandle } from '../db/client';
import { settingsRepository } from '../repositories/settings.repository';
import type { SecretBox } from './secret-box';

const KEY = 'credentials';

/** What reading and writing the credentials needs (a part of the app context, available before it is built). */
export interface CredentialsDeps {
  dbHandle: DbHandle;
  secretBox: SecretBox;
}

/** Upstream credentials, sealed at rest in the shared settings table (write-only through the API). */
export async function loadCredentials(ctx: CredentialsDeps): Promise<Credentials> {
  const sealed = await settingsRepository(ctx.dbHandle.db).get(KEY);
  if (!sealed) return Credentials.parse({});
  return Credentials.parse(JSON.parse(ctx.secretBox.open(sealed)));
}

export async function saveCredentials(ctx: CredentialsDeps, value: Credentials): Promise<void> {
  await settingsRepository(ctx.dbHandle.db).put(KEY, ctx.secretBox.seal(JSON.stringify(value)));
}
