import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../app-context';
import { buildApp } from '../app';
import { loadConfig } from '../config/bootstrap';
import { closeContext, createContext } from '../context';
import { createLogger } from '../log/logger';
import { ADMIN, freshDatabase } from '../test/harness';
import type { TestDatabase } from '../test/harness';

interface Line {
  level: number;
  msg: string;
  req?: { url: string };
  reqId?: string;
}

/** The real app with the real logger (console at INFO, as shipped), its console output captured. */
describe('request log lines at INFO', () => {
  let database: TestDatabase;
  let webDist: string;
  let ctx: AppContext;
  let app: FastifyInstance;
  const output: string[] = [];

  beforeAll(async () => {
    database = await freshDatabase();
    webDist = mkdtempSync(path.join(tmpdir(), 'cc-web-'));
    mkdirSync(path.join(webDist, 'assets'));
    writeFileSync(path.join(webDist, 'index.html'), '<!doctype html><title>Chat Commons</title>');
    writeFileSync(path.join(webDist, 'assets', 'app.js'), 'document.title = 1');
    const config = loadConfig(
      { CC_DATA_DIR: database.dataDir },
      {
        overrides: {
          data: { database_url: database.url, redis_url: null },
          common: { initial_admin_user_password: ADMIN.password },
          log: { console_log_level: 'INFO' },
        },
      },
    );
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        output.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const log = createLogger(config, { file: false, console: { stream, pretty: false } });
    ctx = await createContext(config, log, { demo: false });
    app = await buildApp(ctx, { webDist });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await closeContext(ctx);
    await database.drop();
    rmSync(webDist, { recursive: true, force: true });
  });
  beforeEach(() => {
    output.length = 0;
  });

  /** The console lines of one request (by its id), as parsed JSON. */
  const linesOf = async (url: string) => {
    const res = await app.inject({ url });
    const lines = output.map((l) => JSON.parse(l) as Line);
    const first = lines.find((l) => l.req?.url === url);
    return { res, lines: first ? lines.filter((l) => l.reqId === first.reqId) : [] };
  };

  it('health probes are not logged', async () => {
    for (const url of ['/api/healthz', '/api/readyz']) {
      const { res } = await linesOf(url);
      expect(res.statusCode).toBe(200);
      expect(output.filter((l) => l.includes(url))).toEqual([]);
    }
    expect(output).toEqual([]);
  });

  it('the web app (files and client-side routes) is not logged at INFO', async () => {
    for (const url of ['/', '/assets/app.js', '/conversation?id=1']) {
      const { res } = await linesOf(url);
      expect(res.statusCode, url).toBe(200);
    }
    expect(output).toEqual([]);
  });

  it('built files (hashed names) are cached for good; the page and its routes are checked every visit', async () => {
    expect((await app.inject({ url: '/assets/app.js' })).headers['cache-control']).toBe(
      'public, max-age=31536000, immutable',
    );
    for (const url of ['/', '/conversation?id=1']) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['cache-control'], url).toBe('no-cache');
    }
  });

  it('API requests still are, with their outcome', async () => {
    const { res, lines } = await linesOf('/api/user/me');
    expect(res.statusCode).toBe(401);
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [30, 'incoming request'],
      [30, 'request completed'],
    ]);
  });
});

describe('console format', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cc-log-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = loadConfig({ CC_DATA_DIR: dataDir });
  const capture = (isTTY: boolean) => {
    const out: string[] = [];
    const stream = Object.assign(
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          out.push(chunk.toString());
          done();
        },
      }),
      { isTTY },
    );
    createLogger(config, { file: false, console: { stream } }).warn({ user: 'ann' }, 'quota low');
    return out.join('');
  };

  it('JSON when the console is not a terminal (log collectors)', () => {
    expect(JSON.parse(capture(false))).toMatchObject({ level: 40, msg: 'quota low', user: 'ann' });
  });

  it('one readable line on a terminal', () => {
    const text = capture(true);
    expect(() => JSON.parse(text) as unknown).toThrow();
    // eslint-disable-next-line no-control-regex -- strips the terminal colours
    const plain = text.replace(/\u001b\[[0-9;]*m/g, '');
    expect(plain).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: quota low \{"user":"ann"\}\n$/);
  });
});
