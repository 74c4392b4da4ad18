import { hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Executor } from '../repositories/executor';
import { settingsRepository } from '../repositories/settings.repository';
import type { AppConfig } from './bootstrap';

export interface Secrets {
  /** HMAC key for session token digests. */
  sessionKey: string;
  /** AES-256-GCM key (hex) for credentials at rest. */
  credentialsKey: string;
  /** Session keys being replaced: sessions opened under them still count (rotation). */
  previousSessionKeys: string[];
  /** Credential keys being replaced: what they sealed is still readable, and sealed again at start (rotation). */
  previousCredentialsKeys: string[];
}

/** The settings row that holds the generated keys shared by every instance on the database. */
export const STORED_SECRETS_KEY = 'secrets';
/** Where an install from before the keys moved to the database kept them (adopted once, then left alone). */
export const LEGACY_SECRETS_FILE = 'secrets.json';

const StoredKeys = z.object({ sessionKey: z.string().min(16), credentialsKey: z.string().min(16) });
type StoredKeys = z.infer<typeof StoredKeys>;

function parseKeys(raw: string | undefined): StoredKeys | null {
  if (!raw) return null;
  try {
    const parsed = StoredKeys.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** One key per purpose from the master key (HKDF-SHA256), so no purpose's key reveals another's. */
export function deriveKeys(master: string): StoredKeys {
  const derive = (purpose: string) =>
    Buffer.from(hkdfSync('sha256', master, 'chat-commons', purpose, 32)).toString('hex');
  return { sessionKey: derive('session-key'), credentialsKey: derive('credentials-key') };
}

function generateKeys(): StoredKeys {
  return { sessionKey: randomBytes(32).toString('hex'), credentialsKey: randomBytes(32).toString('hex') };
}

/** The keys of `<data_dir>/secrets.json`, when an earlier single-instance install left one. */
function legacyKeys(dataDir: string): StoredKeys | null {
  const file = path.join(dataDir, LEGACY_SECRETS_FILE);
  if (!existsSync(file)) return null;
  const stored = parseKeys(readFileSync(file, 'utf8'));
  if (!stored) throw new Error(`${file} is not readable as keys: fix or remove it`);
  return stored;
}

/** This data directory's secrets.json as extra keys to read with; an unreadable file is ignored here. */
function ownLegacyKeys(dataDir: string): StoredKeys | null {
  try {
    return legacyKeys(dataDir);
  } catch {
    return null;
  }
}

/**
 * The generated keys of the database: created once, by whichever instance inserts first (several may start
 * together on an empty database; each inserts its candidate if absent and reads back the winner). The candidate
 * is the data directory's secrets.json when there is one, so an existing install keeps its sessions and
 * credentials.
 */
async function sharedKeys(db: Executor, dataDir: string): Promise<StoredKeys> {
  const repo = settingsRepository(db);
  const existing = parseKeys(await repo.get(STORED_SECRETS_KEY));
  if (existing) return existing;
  await repo.insertIfAbsent(STORED_SECRETS_KEY, JSON.stringify(legacyKeys(dataDir) ?? generateKeys()));
  const winner = parseKeys(await repo.get(STORED_SECRETS_KEY));
  if (!winner) throw new Error(`The settings row '${STORED_SECRETS_KEY}' does not hold readable keys`);
  return winner;
}

const distinct = (keys: (string | null | undefined)[], current: string) => [
  ...new Set(keys.filter((k): k is string => !!k && k !== current)),
];

/**
 * The session and credential keys, the same on every instance of a database: derived from `auth.secret_key`
 * when configured, otherwise generated once and kept in the database. `auth.jwt_secret` / `auth.user_secret`
 * still override their key. With a master key, the previous master key and any keys the database generated
 * before are accepted for reading, so moving to a (new) master key loses neither sessions nor credentials.
 */
export async function loadSecrets(config: AppConfig, db: Executor): Promise<Secrets> {
  const { auth } = config;
  const stored = auth.secret_key
    ? parseKeys(await settingsRepository(db).get(STORED_SECRETS_KEY))
    : await sharedKeys(db, config.data.data_dir);
  const base = auth.secret_key ? deriveKeys(auth.secret_key) : (stored ?? generateKeys());
  const previous = auth.previous_secret_key ? deriveKeys(auth.previous_secret_key) : null;
  // Instances that each generated their own secrets.json before the keys were shared: what this one sealed or
  // signed under its own keys stays readable here (and is sealed again with the shared key at start).
  const own = ownLegacyKeys(config.data.data_dir);
  const sessionKey = auth.jwt_secret ?? base.sessionKey;
  const credentialsKey = auth.user_secret ?? base.credentialsKey;
  return {
    sessionKey,
    credentialsKey,
    previousSessionKeys: distinct(
      [previous?.sessionKey, stored?.sessionKey, base.sessionKey, own?.sessionKey],
      sessionKey,
    ),
    previousCredentialsKeys: distinct(
      [previous?.credentialsKey, stored?.credentialsKey, base.credentialsKey, own?.credentialsKey],
      credentialsKey,
    ),
  };
}
