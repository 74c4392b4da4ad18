import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app';
import { loadConfig } from '../config/bootstrap';
import { closeContext, createContext } from '../context';
import { freshDatabase } from '../test/harness';
import type { TestDatabase } from '../test/harness';
import { formatAdminBanner } from './admin-banner';

describe('formatAdminBanner', () => {
  it('frames the username and password so the block stands out among log lines', () => {
    const text = formatAdminBanner({ username: 'admin', password: 's3cret-Pw' });
    const lines = text.trim().split('\n');
    expect(lines[0]).toMatch(/^\+-+\+$/);
    expect(lines.at(-1)).toBe(lines[0]);
    // Every line of the box has the same width.
    expect(new Set(lines.map((l) => l.length)).size).toBe(1);
    expect(text).toContain('username: admin');
    expect(text).toContain('password: s3cret-Pw');
    expect(text).toMatch(/only this once/);
    expect(text).not.toContain('\u001b[');
  });

  it('in colour for a terminal', () => {
    expect(formatAdminBanner({ username: 'admin', password: 'pw-1234567', color: true })).toContain(
      '\u001b[1;33m',
    );
  });
});

describe('the boot that creates the admin with a generated password', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(() => database.drop());

  /** One start of the server on the same database, with no configured admin password. */
  async function boot() {
    const config = loadConfig(
      { CC_DATA_DIR: database.dataDir },
      { overrides: { data: { database_url: database.url, redis_url: null } } },
    );
    expect(config.common.initial_admin_user_password).toBeNull();
    const announced: string[] = [];
    const logged: string[] = [];
    const log = pino(
      { level: 'debug' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          logged.push(chunk.toString());
          done();
        },
      }),
    );
    const ctx = await createContext(config, log, { demo: false, announce: (text) => announced.push(text) });
    return { ctx, announced, logged: logged.join('') };
  }

  it('prints the banner once, with a password that logs in, and never writes that password to the log', async () => {
    const first = await boot();
    let password: string;
    try {
      expect(first.announced).toHaveLength(1);
      password = /password: (\S+)/.exec(first.announced[0]!)![1]!;
      expect(first.announced[0]).toContain('username: admin');
      expect(first.logged).toContain('created with a generated password');
      expect(first.logged).not.toContain(password);

      const app = await buildApp(first.ctx, { webDist: null });
      const res = await app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: new URLSearchParams({ username: 'admin', password }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(res.statusCode, res.body).toBe(200);
      await app.close();
    } finally {
      await closeContext(first.ctx);
    }

    // The next start finds the admin: no banner, no new password.
    const second = await boot();
    try {
      expect(second.announced).toEqual([]);
      expect(second.logged).not.toContain('generated password');
    } finally {
      await closeContext(second.ctx);
    }
  });

  it('a configured password is never announced', async () => {
    const other = await freshDatabase();
    const config = loadConfig(
      { CC_DATA_DIR: other.dataDir },
      {
        overrides: {
          data: { database_url: other.url, redis_url: null },
          common: { initial_admin_user_password: 'configured-pw-1' },
        },
      },
    );
    const announced: string[] = [];
    const ctx = await createContext(config, pino({ level: 'silent' }), {
      demo: false,
      announce: (text) => announced.push(text),
    });
    await closeContext(ctx);
    await other.drop();
    expect(announced).toEqual([]);
  });
});
