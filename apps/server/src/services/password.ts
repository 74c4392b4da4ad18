import { hash, verify } from '@node-rs/argon2';

/** argon2id with the library's defaults (m=19 MiB, t=2, p=1). */
export function hashPassword(plain: string): Promise<string> {
  return hash(plain);
}

let dummy: Promise<string> | undefined;

/** Verifies; for an unknown user pass `null` and a dummy hash is checked so timing does not reveal it. */
export async function verifyPassword(hashed: string | null, plain: string): Promise<boolean> {
  if (hashed === null) {
    dummy ??= hash('not-a-real-password');
    await verify(await dummy, plain).catch(() => false);
    return false;
  }
  return verify(hashed, plain).catch(() => false);
}
