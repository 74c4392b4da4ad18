import { createRequire } from 'node:module';
import path from 'node:path';
import pino from 'pino';
import type PinoPretty from 'pino-pretty';
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

/** A share or invite link's token in a path (the API's and the web pages'), kept out of log lines. */
const TOKEN_PATH = /^(\/(?:api\/)?(?:share|invite)\/)[^/?#]+/;
/** Query values that open something by themselves: a sign-in's code and state, an invite token. */
const TOKEN_QUERY = new Set(['code', 'state', 'invite', 'token']);

/**
 * A request URL as logged: the tokens of share and invite links and the sign-in's code are masked, so that the log
 * file (and whoever ships or reads it) holds no working link — the server itself keeps only their fingerprints.
 */
export function loggedUrl(url: string): string {
  const at = url.indexOf('?');
  const pathname = (at < 0 ? url : url.slice(0, at)).replace(TOKEN_PATH, '$1***');
  if (at < 0) return pathname;
  const query = new URLSearchParams(url.slice(at + 1));
  for (const key of new Set(query.keys())) if (TOKEN_QUERY.has(key)) query.set(key, '***');
  return `${pathname}?${query.toString()}`;
}

/** Fastify's own request fields, with the URL as `loggedUrl` gives it (a pino serializer overrides Fastify's). */
function requestFields(req: {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  headers?: Record<string, unknown>;
  socket?: { remotePort?: number };
}) {
  return {
    method: req.method,
    url: req.url === undefined ? undefined : loggedUrl(req.url),
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

export function serverLogFile(config: AppConfig): string {
  return path.join(config.data.data_dir, 'logs', 'server.log');
}

/** Where console lines go and in which form. */
export interface ConsoleOptions {
  /** The console stream (default process.stdout). */
  stream?: NodeJS.WritableStream;
  /** Human-readable lines instead of JSON (default: when the stream is a terminal). */
  pretty?: boolean;
}

/**
 * Console lines formatted by pino-pretty, synchronously in this thread (no worker or stream pipeline: a line
 * logged just before `process.exit` is not lost, and it works the same from the bundled server). pino-pretty is
 * loaded only when used; it is CommonJS, hence `require`, which keeps `createLogger` synchronous.
 */
function prettyStream(destination: NodeJS.WritableStream, colorize: boolean): pino.DestinationStream {
  const load = createRequire(import.meta.url);
  const { prettyFactory } = load('pino-pretty') as typeof PinoPretty;
  const prettify = prettyFactory({
    colorize,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    singleLine: true,
  });
  return { write: (line: string) => void destination.write(prettify(line)) };
}

/**
 * pino to the console at the configured level (readable lines on a terminal, JSON otherwise, for log
 * collectors), and to a size-rotating file at debug level (JSON) for the admin viewer.
 */
export function createLogger(config: AppConfig, options: { file?: boolean; console?: ConsoleOptions } = {}) {
  const level = LEVELS[config.log.console_log_level];
  const out = options.console?.stream ?? process.stdout;
  const terminal = (out as { isTTY?: boolean }).isTTY === true;
  const pretty = options.console?.pretty ?? terminal;
  const streams: pino.StreamEntry[] = [{ level, stream: pretty ? prettyStream(out, terminal) : out }];
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
  const multi = pino.multistream(streams);
  const logger = pino(
    { level: 'debug', redact: REDACT, base: undefined, serializers: { req: requestFields } },
    multi,
  );
  const consoleStream = streams[0]!.stream;
  consoleLevels.set(logger, (name) => {
    const entry = multi.streams.find((e) => e.stream === consoleStream) as pino.StreamEntry & { id?: number };
    const wanted = pino.levels.values[LEVELS[name]];
    if (!entry?.id || entry.level === wanted) return false;
    multi.remove(entry.id);
    multi.add({ level: LEVELS[name], stream: consoleStream });
    return true;
  });
  return logger;
}

type ConsoleLevel = keyof typeof LEVELS;
/** How to change the console level of each logger `createLogger` made. */
const consoleLevels = new WeakMap<object, (level: ConsoleLevel) => boolean>();

/**
 * Sets the console's level of a logger `createLogger` made: the level saved in the admin console applies at once and
 * at every start (the log file keeps every level). Any other logger (tests') is left as it is. True when the level
 * changed: the runtime settings call this at every load and save, and the same level leaves the console's stream be.
 */
export function setConsoleLevel(log: object, level: ConsoleLevel): boolean {
  return consoleLevels.get(log)?.(level) ?? false;
}
