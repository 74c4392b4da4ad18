import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

function aesKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

function openWith(k: Buffer, sealed: string): string {
  const [v, iv, tag, data] = sealed.split(':');
  if (v !== 'v1' || !iv || !tag || data === undefined) throw new Error('unreadable sealed secret');
  const d = createDecipheriv('aes-256-gcm', k, Buffer.from(iv, 'base64url'));
  d.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([d.update(Buffer.from(data, 'base64url')), d.final()]).toString('utf8');
}

/**
 * AES-256-GCM for secrets at rest (credentials, custom API keys). Output: `v1:<iv>:<tag>:<data>` base64url.
 * Sealing uses `key`; opening also accepts the `previous` keys (a key rotation in progress).
 */
export function createSecretBox(key: string, previous: readonly string[] = []) {
  const k = aesKey(key);
  const older = previous.filter((p) => p !== key).map(aesKey);
  return {
    seal(plain: string): string {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', k, iv);
      const data = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return [
        'v1',
        iv.toString('base64url'),
        c.getAuthTag().toString('base64url'),
        data.toString('base64url'),
      ].join(':');
    },
    /**
     * The plain text, and whether it was sealed with a previous key (then it should be sealed again). Throws when no
     * key opens it.
     */
    unseal(sealed: string): { plain: string; stale: boolean } {
      try {
        return { plain: openWith(k, sealed), stale: false };
      } catch (e) {
        for (const o of older) {
          try {
            return { plain: openWith(o, sealed), stale: true };
          } catch {
            // Not this one either.
          }
        }
        throw e;
      }
    },
    open(sealed: string): string {
      return this.unseal(sealed).plain;
    },
  };
}
export type SecretBox = ReturnType<typeof createSecretBox>;
