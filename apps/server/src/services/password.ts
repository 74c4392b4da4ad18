import { hash, verify } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';
import { NO_LOCAL_PASSWORD, PASSWORD_RESET_REQUIRED } from '../db/schema';

/** argon2id with the library's defaults (m=19 MiB, t=2, p=1). */
export function hashPassword(plain: string): Promise<string> {
  return hash(plain);
}

export { NO_LOCAL_PASSWORD, PASSWORD_RESET_REQUIRED };

/**
 * bcrypt (`$2a$`, `$2b$`, `$2y$`): the predecessor's passlib hashes, verified so imported users keep their password.
 */
const BCRYPT = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;

/** Whether a stored hash is one `verifyPassword` can check. */
export function isVerifiableHash(hashed: string): boolean {
  return hashed.startsWith('$argon2') || BCRYPT.test(hashed);
}

/** Whether a stored hash should be replaced by our own after a successful login (an imported format). */
export function needsRehash(hashed: string): boolean {
  return !hashed.startsWith('$argon2id$');
}

let dummy: Promise<string> | undefined;

/** Verifies; for an unknown user pass `null` and a dummy hash is checked so timing does not reveal it. */
export async function verifyPassword(hashed: string | null, plain: string): Promise<boolean> {
  if (hashed === null || hashed === PASSWORD_RESET_REQUIRED || hashed === NO_LOCAL_PASSWORD) {
    dummy ??= hash('not-a-real-password');
    await verify(await dummy, plain).catch(() => false);
    return false;
  }
  if (BCRYPT.test(hashed)) return bcrypt.compare(plain, hashed).catch(() => false);
  return verify(hashed, plain).catch(() => false);
}
