import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import pino from 'pino';
import { SESSION_COOKIE } from '@cc/contracts';
import type { ChatSource, ConfigInput, UserCreate } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { buildApp } from '../app';
import { loadConfig } from '../config/bootstrap';
import { closeContext, createContext } from '../context';
import type { ContextOptions } from '../context';

/** What a test may set on the app it starts: the context's options, and a logger of its own to read what is logged. */
export type TestAppOptions = ContextOptions & { log?: pino.Logger };
import type { LoadedUser } from '../presenters/user.presenter';
import { conversationRepository } from '../repositories/conversation.repository';
import { createUser } from '../services/user.service';
import { dropRedisKeys, testRedisPrefix } from './redis-keys';

export const ADMIN = { username: 'admin', password: 'admin-pass-123' } as const;

/** A fresh database for one test app: a new SQLite file, or a new `cc_test_<random>` PostgreSQL database. */
export async function freshDatabase(): Promise<{
  url: string | null;
  dataDir: string;
  drop(): Promise<void>;
}> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cc-test-'));
  const base = process.env.CC_TEST_DATABASE_URL;
  if (!base) {
    return {
      url: null,
      dataDir,
      drop: () => Promise.resolve(rmSync(dataDir, { recursive: true, force: true })),
    };
  }
  const name = `cc_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    dataDir,
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface TestApp {
  app: FastifyInstance;
  database: { url: string | null; dataDir: string };
  ctx: AppContext;
  /** Logs in and returns the Cookie header value. */
  login(username: string, password: string): Promise<string>;
  /** Creates a user through the service (default settings unless given). */
  createUser(overrides?: Partial<UserCreate>): Promise<LoadedUser & { password: string }>;
  close(): Promise<void>;
}

let seq = 0;

export type TestDatabase = Awaited<ReturnType<typeof freshDatabase>>;

/** The real app in-process with a fresh database and the initial admin; `close()` drops the database. */
export async function createTestApp(
  config: ConfigInput = {},
  /** Adds test-only routes before the app is sealed. */
  extend?: (app: FastifyInstance) => void,
  options: TestAppOptions = {},
  /** Another app whose database and data directory this one shares, as a second instance would. */
  sibling?: TestApp,
): Promise<TestApp> {
  if (sibling) return openTestApp(sibling.database, config, extend, options);
  const database = await freshDatabase();
  try {
    const t = await openTestApp(database, config, extend, options);
    return {
      ...t,
      async close() {
        await t.close();
        await database.drop();
      },
    };
  } catch (e) {
    await database.drop();
    throw e;
  }
}

/**
 * The real app on an existing database and data directory, as a server (re)started on them would be. Its
 * `close()` keeps both, so another app can be opened on them (restart tests); the caller drops the database.
 */
export async function openTestApp(
  database: Pick<TestDatabase, 'url' | 'dataDir'>,
  config: ConfigInput = {},
  extend?: (app: FastifyInstance) => void,
  options: TestAppOptions = {},
): Promise<TestApp> {
  // Keys under a prefix the harness chose are removed when the app closes (a test that names one owns its keys).
  const ownPrefix = config.data?.redis_prefix ? null : testRedisPrefix();
  const cfg = loadConfig(
    { CC_DATA_DIR: database.dataDir },
    {
      overrides: {
        ...config,
        // The PostgreSQL suite also runs coordination on Redis (CC_TEST_REDIS_URL); keys get a fresh prefix per app.
        data: {
          ...config.data,
          database_url: database.url,
          // A test may point at Redis through a proxy of its own (outage tests).
          redis_url:
            config.data && 'redis_url' in config.data
              ? (config.data.redis_url ?? null)
              : (process.env.CC_TEST_REDIS_URL ?? null),
          // Apps given the same prefix share their coordination state, like instances of one deployment.
          redis_prefix: config.data?.redis_prefix ?? ownPrefix!,
        },
        // Test upstreams listen on loopback: users' own API addresses may reach it here (the guard's own tests
        // turn this off).
        openai_api: { custom_api_private_networks: true, ...config.openai_api },
        common: {
          initial_admin_user_username: ADMIN.username,
          initial_admin_user_password: ADMIN.password,
          ...config.common,
        },
      },
    },
  );
  const { log = pino({ level: process.env.CC_TEST_LOG ?? 'silent' }), ...contextOptions } = options;
  // The demo emulator (when it starts) on any free port, not next to the configured 8000.
  const ctx = await createContext(cfg, log, { demoPort: 0, ...contextOptions });
  const app = await buildApp(ctx, { webDist: null });
  extend?.(app);
  await app.ready();
  return {
    app,
    ctx,
    database: { url: database.url, dataDir: database.dataDir },
    async login(username, password) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: new URLSearchParams({ username, password }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
      return sessionCookie(res);
    },
    async createUser(overrides = {}) {
      seq += 1;
      const password = overrides.password ?? 'user-pass-123';
      const user = await createUser(ctx, {
        user: {
          username: `user${seq}_${randomBytes(3).toString('hex')}`,
          nickname: `User ${seq}`,
          email: `user${seq}@example.com`,
          is_active: true,
          is_superuser: false,
          is_verified: false,
          ...overrides,
          password,
        },
      });
      return { ...user, password };
    },
    async close() {
      await app.close();
      await closeContext(ctx);
      // Through Redis itself, not a test's proxy in front of it (which may be cut).
      if (ownPrefix && cfg.data.redis_url) {
        await dropRedisKeys(process.env.CC_TEST_REDIS_URL ?? cfg.data.redis_url, ownPrefix);
      }
    },
  };
}

/**
 * A logger for a test app started with `common.print_sql`: it keeps the SQL text of every statement the app runs,
 * in order, in `statements` (SQL printing logs each one at debug level with its time).
 */
export function sqlRecorder(): { log: pino.Logger; statements: string[] } {
  const statements: string[] = [];
  const log = pino(
    { level: 'debug' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        const entry = JSON.parse(chunk.toString()) as { ms?: number; msg: string };
        if (entry.ms !== undefined) statements.push(entry.msg);
        done();
      },
    }),
  );
  return { log, statements };
}

/** `cc_session=…` from a response's Set-Cookie. */
export function sessionCookie(res: LightMyRequestResponse): string {
  const c = res.cookies.find((x) => x.name === SESSION_COOKIE);
  if (!c) throw new Error('no session cookie');
  return `${SESSION_COOKIE}=${c.value}`;
}

/** Writes a conversation row straight to the database (no messages): a user's, of the given source and title. */
export async function insertConversation(
  ctx: AppContext,
  userId: number,
  { source = 'openai_api', title = null }: { source?: ChatSource; title?: string | null } = {},
): Promise<string> {
  const id = randomUUID();
  const now = new Date().toISOString();
  await conversationRepository(ctx.dbHandle.db).insert({
    conversation_id: id,
    source,
    title,
    user_id: userId,
    is_valid: 1,
    is_public: 0,
    current_model: source === 'openai_api' ? 'gpt_3_5' : 'gpt_4o',
    current_node: null,
    server_id: null,
    plugin_ids: null,
    create_time: now,
    update_time: now,
  });
  return id;
}
