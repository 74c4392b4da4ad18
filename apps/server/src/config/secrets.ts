import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from './bootstrap';
import type { AppConfig } from './bootstrap';

export interface Secrets {
  /** HMAC key for session token digests. */
  sessionKey: string;
  /** AES-256-GCM key (hex) for credentials at rest. */
  credentialsKey: string;
}

/**
 * Secrets that are not configured are generated once and kept in `<data_dir>/secrets.json` (mode 0600), so no
 * shipped default secret is ever used.
 */
export function loadSecrets(config: AppConfig): Secrets {
  const file = path.join(config.data.data_dir, 'secrets.json');
  let stored: Partial<Secrets> = {};
  if (existsSync(file)) stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<Secrets>;
  const generated: Secrets = {
    sessionKey: stored.sessionKey ?? randomBytes(32).toString('hex'),
    credentialsKey: stored.credentialsKey ?? randomBytes(32).toString('hex'),
  };
  if (stored.sessionKey !== generated.sessionKey || stored.credentialsKey !== generated.credentialsKey) {
    ensurePrivateDir(config.data.data_dir);
    writeFileSync(file, JSON.stringify(generated, null, 2), { mode: 0o600 });
  }
  return {
    sessionKey: config.auth.jwt_secret ?? generated.sessionKey,
    credentialsKey: config.auth.user_secret ?? generated.credentialsKey,
  };
}
