import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/bootstrap';
import { createLogger, setConsoleLevel } from './logger';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A logger whose console is an array of the messages written, at the level config.yaml or the environment set. */
function consoleLogger(level: 'INFO' | 'DEBUG' | 'WARNING') {
  const dir = mkdtempSync(path.join(tmpdir(), 'cc-log-'));
  dirs.push(dir);
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push((JSON.parse(chunk.toString()) as { msg: string }).msg);
      done();
    },
  });
  const log = createLogger(loadConfig({ CC_DATA_DIR: dir, CC_LOG_LEVEL: level }), {
    file: false,
    console: { stream, pretty: false },
  });
  return { log, lines };
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
