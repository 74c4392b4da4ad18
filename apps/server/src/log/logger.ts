import path from 'node:path';
import pino from 'pino';
import type { AppConfig } from '../config/bootstrap';
import { rotatingFile } from './rotating-file';

const LEVELS = { INFO: 'info', DEBUG: 'debug', WARNING: 'warn' } as const;

/** Secrets never reach a log line. */
const REDACT = [
  'req.headers.cookie',
  'req.headers.authorization',
  'res.headers["set-cookie"]',
  '*.password',
  '*.openai_web_access_token',
  '*.openai_api_key',
  '*.key',
];

export function serverLogFile(config: AppConfig): string {
  return path.join(config.data.data_dir, 'logs', 'server.log');
}

/** pino to stdout at the configured level, and to a size-rotating file at debug level for the admin viewer. */
export function createLogger(config: AppConfig, options: { file?: boolean } = {}) {
  const level = LEVELS[config.log.console_log_level];
  const streams: pino.StreamEntry[] = [{ level, stream: process.stdout }];
  if (options.file !== false) {
    streams.push({
      level: 'debug',
      stream: rotatingFile({
        file: serverLogFile(config),
        maxBytes: config.log.file_max_bytes,
        backupCount: config.log.file_backup_count,
      }),
    });
  }
  return pino({ level: 'debug', redact: REDACT, base: undefined }, pino.multistream(streams));
}
