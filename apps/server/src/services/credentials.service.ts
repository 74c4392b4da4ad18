import { Credentials } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { settingsRepository } from '../repositories/settings.repository';

const KEY = 'credentials';

/** Upstream credentials, sealed at rest in the shared settings table (write-only through the API). */
export async function loadCredentials(ctx: Pick<AppContext, 'dbHandle' | 'secretBox'>): Promise<Credentials> {
  const sealed = await settingsRepository(ctx.dbHandle.db).get(KEY);
  if (!sealed) return Credentials.parse({});
  return Credentials.parse(JSON.parse(ctx.secretBox.open(sealed)));
}

export async function saveCredentials(
  ctx: Pick<AppContext, 'dbHandle' | 'secretBox'>,
  value: Credentials,
): Promise<void> {
  await settingsRepository(ctx.dbHandle.db).put(KEY, ctx.secretBox.seal(JSON.stringify(value)));
}
