import { closeSync, openSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type { LogEvent, SqliteDatabase, SqliteStatement } from 'kysely';
import pg from 'pg';
import { ensurePrivateDir, restrictToOwner } from '../config/bootstrap';
import { startCheckpointer } from './checkpointer';
import type { Checkpointer } from './checkpointer';
import type { Database } from './schema';
import { MERGED_USERS_FUNCTION, mergedUserLists } from './user-lists';

export type DialectName = 'sqlite' | 'postgres';

export interface DbHandle {
  db: Kysely<Database>;
  dialect: DialectName;
  /** Human-readable target without credentials, for logs. */
  describe: string;
  /** One trivial query: resolves when the database answers (health check). */
  ping(): Promise<void>;
  /** SQLite's checkpoints on a worker thread (`backgroundCheckpoints`), else null. */
  checkpoints: Checkpointer | null;
  close(): Promise<void>;
}

async function ping(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}

export interface OpenDbOptions {
  /** null = SQLite file in dataDir; `postgres://…` = PostgreSQL; `:memory:` = in-memory SQLite. */
  databaseUrl: string | null;
  dataDir: string;
  /** Called for each query when SQL printing is on. */
  onQuery?: (sql: string, ms: number) => void;
  /**
   * Called when an idle pooled PostgreSQL connection fails (server restart, terminated backend). The pool drops
   * that connection and opens a new one on the next query; without a listener the error would end the process.
   */
  onConnectionError?: (error: Error) => void;
  /**
   * A SQLite file is checkpointed on a worker thread instead of at the commits of the server's connection
   * (`startCheckpointer`); `onCheckpointFailure` hears when that worker fails (commits checkpoint again then).
   */
  backgroundCheckpoints?: boolean;
  onCheckpointFailure?: (error: Error) => void;
}

export function isPostgresUrl(url: string | null | undefined): url is string {
  return !!url && /^postgres(ql)?:\/\//.test(url);
}

/** The SQLite file a database URL names: `<data_dir>/database.db` by default, a path, `sqlite:<path>` or `:memory:`. */
export function sqliteFile(databaseUrl: string | null, dataDir: string): string {
  const file = databaseUrl ?? path.join(dataDir, 'database.db');
  return file.startsWith('sqlite:') ? file.replace(/^sqlite:(\/\/)?/, '') : file;
}

/**
 * PostgreSQL's classes of errors that say the server is not there or not taking work now: connection exceptions
 * (08), insufficient resources (53: too many connections), operator intervention (57: shutting down, terminated).
 */
const PG_UNAVAILABLE_CLASS = /^(08|53|57)/;
const UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|not currently accepting connections|the database system is (starting up|shutting down)/;

/**
 * Whether an error means the database cannot be reached or is not taking work now (a restart, a network cut, no
 * free connection, SQLite busy past its timeout) rather than a fault of the request or of the code: the user is told
 * to try again shortly (503), not that something broke.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (PG_UNAVAILABLE_CLASS.test(code) && code.length === 5) return true;
    if (code === 'ECONNREFUSED' || code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT') return true;
  }
  return typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message);
}

/** What PostgreSQL stores for a NUL character, which its text cannot hold. */
export const NUL_REPLACEMENT = '\uFFFD';

function withoutNul(value: unknown): unknown {
  return typeof value === 'string' && value.includes('\u0000')
    ? value.replaceAll('\u0000', NUL_REPLACEMENT)
    : value;
}

/**
 * PostgreSQL refuses a NUL character in text ("invalid byte sequence"): a question, an answer or a nickname that
 * holds one would fail its whole write (an answer lost, a 500). Strings sent as parameters have it replaced by U+FFFD,
 * as a UTF-8 decoder shows a byte it cannot read. SQLite stores NUL as it is.
 */
class NulSafeClient extends pg.Client {
  override query(...args: unknown[]): never {
    if (Array.isArray(args[1])) args[1] = args[1].map(withoutNul);
    return (super.query as (...a: unknown[]) => never)(...args);
  }
}

/**
 * Clients that always have an error listener: a connection that ends while a query runs on it (the server restarted,
 * the backend terminated) emits `error` on its client as well as failing the query, and an `error` event nobody
 * listens to ends the process.
 */
function listenedClient(onError: (error: Error) => void): typeof NulSafeClient {
  return class extends NulSafeClient {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      this.on('error', onError);
    }
  };
}

/** Opens the database: SQLite (WAL, busy timeout) by default, PostgreSQL for `postgres://` URLs. */
export function openDb(options: OpenDbOptions): DbHandle {
  const log = options.onQuery
    ? (event: LogEvent) => {
        if (event.level === 'query') options.onQuery?.(event.query.sql, event.queryDurationMillis);
      }
    : undefined;
  if (isPostgresUrl(options.databaseUrl)) {
    // (A server that takes the connection but never answers fails a new connection after 10 s instead of holding it.)
    const onError = (error: Error) => options.onConnectionError?.(error);
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: 10,
      connectionTimeoutMillis: 10_000,
      Client: listenedClient(onError),
    });
    // An idle connection's error reaches the pool; one in use (the pool stops listening while it is checked out)
    // reaches its client's listener: either way the query in flight fails and the process carries on.
    pool.on('error', onError);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log });
    const target = new URL(options.databaseUrl);
    return {
      db,
      dialect: 'postgres',
      describe: `postgres://${target.host}${target.pathname}`,
      ping: () => ping(db),
      checkpoints: null,
      close: () => db.destroy(),
    };
  }
  const file = sqliteFile(options.databaseUrl, options.dataDir);
  if (file !== ':memory:') {
    // Owner-only: SQLite gives the WAL and shared-memory files the database file's mode.
    ensurePrivateDir(path.dirname(path.resolve(file)));
    closeSync(openSync(file, 'a', 0o600));
    for (const f of [file, `${file}-wal`, `${file}-shm`]) restrictToOwner(f);
  }
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.function(MERGED_USERS_FUNCTION, { deterministic: true }, mergedUserLists);
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: reusingStatements(sqlite) }),
    log,
  });
  const checkpoints =
    options.backgroundCheckpoints && file !== ':memory:'
      ? startCheckpointer(sqlite, file, (error) => options.onCheckpointFailure?.(error))
      : null;
  return {
    db,
    dialect: 'sqlite',
    describe: `sqlite:${file}`,
    ping: () => ping(db),
    checkpoints,
    async close() {
      await checkpoints?.close();
      await db.destroy();
    },
  };
}

/** How many prepared statements a SQLite connection keeps for reuse (the least recently used go first). */
export const STATEMENT_CACHE_SIZE = 1000;

/**
 * The SQLite connection as kysely sees it, with each statement prepared once and reused: kysely asks for a
 * prepare per query, and preparing is a good part of the cost of a small query. One connection runs one query at a
 * time (kysely queues them), so a cached statement is never in use twice. Statements whose SQL differs each time
 * (an `in` list of another length) fall out of the cache as it fills.
 */
export function reusingStatements(
  database: SqliteDatabase,
  size = STATEMENT_CACHE_SIZE,
): SqliteDatabase & { cached(): number } {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => {
      statements.clear();
      database.close();
    },
    prepare(text: string): SqliteStatement {
      const found = statements.get(text);
      if (found) {
        // Most recently used last.
        statements.delete(text);
        statements.set(text, found);
        return found;
      }
      const statement = database.prepare(text);
      statements.set(text, statement);
      if (statements.size > size) statements.delete(statements.keys().next().value!);
      return statement;
    },
    cached: () => statements.size,
  };
}
