import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** AES-256-GCM for secrets at rest (credentials, custom API keys). Output: `v1:<iv>:<tag>:<data>` base64url. */
export function createSecretBox(key: string) {
  const k = createHash('sha256').update(key).digest();
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
    open(sealed: string): string {
      const [v, iv, tag, data] = sealed.split(':');
      if (v !== 'v1' || !iv || !tag || data === undefined) throw new Error('unreadable sealed secret');
      const d = createDecipheriv('aes-256-gcm', k, Buffer.from(iv, 'base64url'));
      d.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([d.update(Buffer.from(data, 'base64url')), d.final()]).toString('utf8');
    },
  };
}
export type SecretBox = ReturnType<typeof createSecretBox>;
