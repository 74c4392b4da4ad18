import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/bootstrap';
import Fastify from 'fastify';
import { createLogger, loggedUrl, setConsoleLevel } from './logger';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A logger whose console is an array of the messages written, at the level config.yaml or the environment set. */
function consoleLogger(level: 'INFO' | 'DEBUG' | 'WARNING') {
  const dir = mkdtempSync(path.join(tmpdir(), 'cc-log-'));
  dirs.push(dir);
  const lines: string[] = [];
  const records: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const record = JSON.parse(chunk.toString()) as { msg: string };
      lines.push(record.msg);
      records.push(record);
      done();
    },
  });
  const log = createLogger(loadConfig({ CC_DATA_DIR: dir, CC_LOG_LEVEL: level }), {
    file: false,
    console: { stream, pretty: false },
  });
  return { log, lines, records };
}

describe('the console log level', () => {
  it('starts at the configured level and follows a new one (the admin console’s) at once', () => {
    const { log, lines } = consoleLogger('WARNING');
    log.info('info at warning');
    log.warn('warn at warning');
    setConsoleLevel(log, 'DEBUG');
    log.debug('debug at debug');
    setConsoleLevel(log, 'INFO');
    log.debug('debug at info');
    log.info('info at info');
    expect(lines).toEqual(['warn at warning', 'debug at debug', 'info at info']);
  });

  it('changes the console only when the level differs (every load and save of the settings sets it)', () => {
    const { log, lines } = consoleLogger('INFO');
    expect(setConsoleLevel(log, 'INFO')).toBe(false);
    expect(setConsoleLevel(log, 'DEBUG')).toBe(true);
    expect(setConsoleLevel(log, 'DEBUG')).toBe(false);
    log.debug('debug at debug');
    expect(lines).toEqual(['debug at debug']);
  });

  it('leaves a logger it did not make alone', () => {
    expect(setConsoleLevel({}, 'DEBUG')).toBe(false);
  });
});

describe('request lines', () => {
  it("mask share and invite links' tokens and a sign-in's code and state, and keep the rest of the URL", async () => {
    const { log, records } = consoleLogger('INFO');
    const app = Fastify({ loggerInstance: log });
    app.get('/api/share/:token', async () => 'ok');
    app.get('/api/share/:token/files/:file_id', async () => 'ok');
    app.post('/api/invite/:token', async () => 'ok');
    app.get('/api/auth/oidc/callback', async () => 'ok');
    app.get('/api/auth/oidc/start', async () => 'ok');
    app.get('/api/conv', async () => 'ok');
    for (const url of [
      '/api/share/SECRETshare1',
      '/api/share/SECRETshare2/files/file-7',
      '/api/auth/oidc/callback?code=SECRETcode&state=SECRETstate&iss=https%3A%2F%2Fidp',
      '/api/auth/oidc/start?invite=SECRETinvite',
      '/api/conv?offset=20&limit=10',
    ])
      await app.inject({ url });
    await app.inject({ method: 'POST', url: '/api/invite/SECRETinvite2' });
    await app.close();
    const urls = records
      .map((r) => (r.req as { url?: string } | undefined)?.url)
      .filter((url): url is string => url !== undefined);
    expect(urls).toEqual([
      '/api/share/***',
      '/api/share/***/files/file-7',
      '/api/auth/oidc/callback?code=***&state=***&iss=https%3A%2F%2Fidp',
      '/api/auth/oidc/start?invite=***',
      '/api/conv?offset=20&limit=10',
      '/api/invite/***',
    ]);
    expect(JSON.stringify(records)).not.toContain('SECRET');
  });

  it('masks the web pages of those links too', () => {
    expect(loggedUrl('/share/abcDEF123?x=1')).toBe('/share/***?x=1');
    expect(loggedUrl('/invite/abcDEF123')).toBe('/invite/***');
    expect(loggedUrl('/shares/abc')).toBe('/shares/abc');
  });
});
