import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { closeContext, createContext } from '../context';
import { createLogger, serverLogFile } from '../log/logger';
import { ConfigError, loadConfig } from './bootstrap';

function dir(): string {
  return mkdtempSync(path.join(tmpdir(), 'cc-config-'));
}

describe('loadConfig', () => {
  it('has the SPEC §9 defaults', () => {
    const c = loadConfig({ CC_DATA_DIR: dir() });
    expect(c.openai_web).toMatchObject({
      enabled: true,
      is_plus_account: true,
      common_timeout: 20,
      ask_timeout: 600,
      sync_conversations_on_startup: true,
      sync_conversations_schedule: false,
      sync_conversations_schedule_interval_hours: 12,
      enabled_models: ['gpt_3_5', 'gpt_4', 'gpt_4_code_interpreter', 'gpt_4_plugins', 'gpt_4_browsing'],
      file_upload_strategy: 'browser_upload_only',
      enable_uploading_attachments: true,
      enable_uploading_multimodal_images: true,
      proxy: null,
    });
    expect(c.openai_web.model_code_mapping.gpt_4).toBe('gpt-4');
    expect(c.openai_api).toMatchObject({
      enabled: true,
      connect_timeout: 10,
      read_timeout: 20,
      enabled_models: ['gpt_3_5', 'gpt_4'],
      model_code_mapping: { gpt_3_5: 'gpt-3.5-turbo', gpt_4: 'gpt-4' },
    });
    expect(c.common).toMatchObject({
      print_sql: false,
      create_initial_admin_user: true,
      initial_admin_user_username: 'admin',
    });
    expect(c.http.port).toBe(8000);
    expect(c.http.host).toBe('127.0.0.1');
    expect(c.http.cors_allow_origins).toEqual([]);
    expect(c.data).toMatchObject({ run_migration: false, max_file_upload_size: 104857600 });
    expect(c.auth).toMatchObject({ jwt_lifetime_seconds: 259200, cookie_max_age: 259200, jwt_secret: null });
    expect(c.stats).toMatchObject({
      ask_stats_ttl: 7776000,
      request_stats_ttl: 2592000,
      request_stats_filter_keywords: ['/status'],
    });
    expect(c.log.console_log_level).toBe('INFO');
    expect(Object.isFrozen(c.http)).toBe(true);
  });

  it('layers config.yaml under the environment', () => {
    const d = dir();
    writeFileSync(
      path.join(d, 'config.yaml'),
      'http:\n  port: 9000\n  host: 0.0.0.0\nopenai_api:\n  read_timeout: 45\n',
    );
    const c = loadConfig({ CC_DATA_DIR: d, CC_PORT: '9100', CC_LOG_LEVEL: 'DEBUG' });
    expect(c.http.port).toBe(9100);
    expect(c.http.host).toBe('0.0.0.0');
    expect(c.openai_api.read_timeout).toBe(45);
    expect(c.log.console_log_level).toBe('DEBUG');
    expect(c.data.data_dir).toBe(d);
  });

  it('reads every documented environment variable', () => {
    const d = dir();
    const c = loadConfig({
      CC_DATA_DIR: d,
      CC_HOST: '127.0.0.2',
      CC_DATABASE_URL: 'postgres://x@127.0.0.1/db',
      CC_REDIS_URL: 'redis://127.0.0.1:6379',
      CC_INITIAL_ADMIN_USERNAME: 'root',
      CC_INITIAL_ADMIN_PASSWORD: 'long-enough-1',
      CC_TRUST_PROXY: '10.0.0.2, 172.16.0.0/12',
      CC_REDIS_PREFIX: 'team-a:',
      CC_UPLOADS_DIR: 'shared/uploads',
      CC_SECRET_KEY: '0123456789abcdef0123',
      CC_PREVIOUS_SECRET_KEY: 'fedcba9876543210fedc',
    });
    expect(c.http.host).toBe('127.0.0.2');
    expect(c.data.redis_prefix).toBe('team-a:');
    // A relative uploads folder is taken from the working directory, like the data directory.
    expect(c.data.uploads_dir).toBe(path.resolve('shared/uploads'));
    expect(c.auth.secret_key).toBe('0123456789abcdef0123');
    expect(c.auth.previous_secret_key).toBe('fedcba9876543210fedc');
    expect(c.http.trust_proxy).toEqual(['10.0.0.2', '172.16.0.0/12']);
    expect(loadConfig({ CC_DATA_DIR: d, CC_TRUST_PROXY: 'false' }).http.trust_proxy).toBe(false);
    expect(c.data.database_url).toBe('postgres://x@127.0.0.1/db');
    expect(c.data.redis_url).toBe('redis://127.0.0.1:6379');
    expect(c.common.initial_admin_user_username).toBe('root');
    expect(c.common.initial_admin_user_password).toBe('long-enough-1');
  });

  it('fails with the full list of problems', () => {
    const d = dir();
    writeFileSync(
      path.join(d, 'config.yaml'),
      'openai_web:\n  common_timeout: 0\n  ask_timeout: 0\nopenai_api:\n  connect_timeout: 0\ndata:\n  max_file_upload_size: -1\nauth:\n  jwt_lifetime_seconds: 0\n',
    );
    let error: unknown;
    try {
      loadConfig({ CC_DATA_DIR: d, CC_PORT: '70000', CC_INITIAL_ADMIN_PASSWORD: 'has space 1' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const key of [
      'openai_web.common_timeout',
      'openai_web.ask_timeout',
      'openai_api.connect_timeout',
      'data.max_file_upload_size',
      'auth.jwt_lifetime_seconds',
      'http.port',
      'common.initial_admin_user_password',
    ]) {
      expect(problems).toContain(key);
    }
  });

  it('refuses a database or Redis URL it cannot use, and says a bad admin password in words', () => {
    const problemsOf = (env: Record<string, string>) => {
      try {
        loadConfig({ CC_DATA_DIR: dir(), ...env });
        return '';
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as ConfigError).problems.join('\n');
      }
    };
    // A mistyped URL once ran the server on a new, empty SQLite file named after it.
    expect(problemsOf({ CC_DATABASE_URL: 'mysql://x@localhost/db' })).toContain(
      'data.database_url: use postgres://user@host/database for PostgreSQL, or leave it empty for SQLite',
    );
    expect(problemsOf({ CC_DATABASE_URL: 'postgress://x@localhost/db' })).toContain('data.database_url');
    for (const usable of ['postgresql://x@127.0.0.1/db', 'sqlite:/tmp/cc.db', '/tmp/cc.db', ':memory:'])
      expect(problemsOf({ CC_DATABASE_URL: usable }), usable).toBe('');
    expect(problemsOf({ CC_REDIS_URL: 'notaurl' })).toContain(
      'data.redis_url: use redis://host:6379 (or rediss:// for TLS), or leave it empty',
    );
    expect(problemsOf({ CC_REDIS_URL: 'rediss://:pw@cache:6380/1' })).toBe('');
    const password = problemsOf({ CC_INITIAL_ADMIN_PASSWORD: 'abc' });
    expect(password).toContain('common.initial_admin_user_password: a password is 7 to 128 printable ASCII');
    expect(password).not.toContain('validation.');
  });

  it('refuses to trust every client or a hop count, and proxies that are not addresses or networks', () => {
    const problemsOf = (yaml: string, env: Record<string, string> = {}) => {
      const d = dir();
      writeFileSync(path.join(d, 'config.yaml'), yaml);
      try {
        loadConfig({ CC_DATA_DIR: d, ...env });
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as ConfigError).problems.join('\n');
      }
      return '';
    };
    for (const [yaml, env, reason] of [
      ['http:\n  trust_proxy: true\n', {}, 'would trust every client'],
      ['{}\n', { CC_TRUST_PROXY: 'true' }, 'would trust every client'],
      ['http:\n  trust_proxy: 1\n', {}, 'hop count'],
      ['{}\n', { CC_TRUST_PROXY: '2' }, 'hop count'],
    ] as const) {
      const problems = problemsOf(yaml, env);
      expect(problems).toContain('http.trust_proxy');
      expect(problems).toContain(reason);
      expect(problems).toContain('addresses and networks');
    }
    for (const bad of ['[]', '[example.com]', '["10.0.0.0/33"]', '"10.0.0.1"'])
      expect(problemsOf(`http:\n  trust_proxy: ${bad}\n`)).toContain('http.trust_proxy');
    expect(problemsOf('http:\n  trust_proxy: [10.0.0.2, "fd00::/8", loopback]\n')).toBe('');
  });

  it('names unknown sections and keys of the config file instead of ignoring them', () => {
    const d = dir();
    writeFileSync(path.join(d, 'config.yaml'), 'http:\n  prot: 9000\nopenai_webb:\n  x: 1\n');
    let error: unknown;
    try {
      loadConfig({ CC_DATA_DIR: d });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toContain('http.prot: unknown key');
    expect(problems).toContain('openai_webb: unknown section');
  });

  it('rejects an unparsable config file', () => {
    const d = dir();
    writeFileSync(path.join(d, 'config.yaml'), 'http: [unclosed');
    expect(() => loadConfig({ CC_DATA_DIR: d })).toThrow(ConfigError);
  });
});

describe('data directory', () => {
  const modeOf = (file: string) => statSync(file).mode & 0o777;

  it('is created owner-only (0700) with the database, its WAL and the log owner-only (0600)', async () => {
    const base = dir();
    const dataDir = path.join(base, 'data');
    const config = loadConfig(
      { CC_DATA_DIR: dataDir },
      {
        overrides: {
          common: { initial_admin_user_password: 'admin-pass-123' },
          log: { console_log_level: 'WARNING' },
        },
      },
    );
    const db = path.join(dataDir, 'database.db');
    const files = [db, `${db}-wal`, `${db}-shm`, serverLogFile(config)];
    const boot = async () => {
      // As main.ts does: the logger (with its file) first, then the context (secrets, database, migrations).
      const logger = createLogger(config);
      const ctx = await createContext(config, pino({ level: 'silent' }), { demo: false });
      logger.warn('booted');
      return { ctx, logger };
    };
    try {
      const first = await boot();
      expect(modeOf(dataDir)).toBe(0o700);
      expect(modeOf(path.dirname(serverLogFile(config)))).toBe(0o700);
      for (const file of files) {
        expect(existsSync(file), file).toBe(true);
        expect([file, modeOf(file)]).toEqual([file, 0o600]);
      }
      await closeContext(first.ctx);

      // Files an earlier version left readable by others are narrowed at the next start.
      for (const file of [db, serverLogFile(config)]) chmodSync(file, 0o644);
      const second = await boot();
      for (const file of files) expect([file, modeOf(file)]).toEqual([file, 0o600]);
      await closeContext(second.ctx);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
