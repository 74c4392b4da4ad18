import { createServer } from 'node:net';
import path from 'node:path';
import { ConfigError, loadConfig } from './config/bootstrap';
import type { AppConfig } from './config/bootstrap';
import { buildApp } from './app';
import { closeContext, createContext } from './context';
import { PendingMigrationsError } from './db/migrate';
import { createLogger } from './log/logger';
import { isPostgresUrl } from './db/client';
import { SERVER_PID_FILE, markDataDirInUse, runningServer } from './ops/data-dir';
import { limitHeapGrowth } from './ops/heap';
import { configuredModels, warmTokenizers } from './sources/tokens';

/** Connections the kernel keeps waiting for accept (capped by net.core.somaxconn). */
const LISTEN_BACKLOG = 4096;

const portInUse = (host: string, port: number) =>
  `Port ${port} on ${host} is in use by another process: stop it, or set another port (CC_PORT or http.port).`;

/** Whether `port` on `host` can be listened on now (0: any port, always). */
function portFree(host: string, port: number): Promise<boolean> {
  if (port === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** Why this server must not start, in words, or null: the data directory or the port is taken. */
async function startRefusal(config: AppConfig): Promise<string | null> {
  const dataDir = config.data.data_dir;
  const other = isPostgresUrl(config.data.database_url) ? null : runningServer(dataDir);
  if (other !== null && other !== process.pid)
    return (
      `Another server (process ${other}) is using the data directory ${dataDir}: with SQLite one server runs per ` +
      `data directory. Stop it first, or give this one its own CC_DATA_DIR (several instances share PostgreSQL ` +
      `and Redis instead). (If no server runs, the file ${path.join(dataDir, SERVER_PID_FILE)} is stale: remove it.)`
    );
  if (!(await portFree(config.http.host, config.http.port)))
    return portInUse(config.http.host, config.http.port);
  return null;
}

/** Boot: load config → open db → migrate → build app → listen → graceful stop. */
async function main(): Promise<void> {
  limitHeapGrowth();
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(2);
    }
    throw e;
  }
  // Refused before anything is written (migrations, the initial admin, the demo upstream): a second server on the same
  // SQLite directory, or a port another process holds.
  const refusal = await startRefusal(config);
  if (refusal) {
    console.error(refusal);
    process.exit(2);
  }
  const log = createLogger(config);
  let ctx;
  try {
    ctx = await createContext(config, log, { tasks: {}, backgroundCheckpoints: true });
  } catch (e) {
    if (e instanceof PendingMigrationsError) {
      log.fatal(e.message);
      process.exit(3);
    }
    throw e;
  }
  // A restore refuses this data directory while the mark is there (removed at exit; a stale one is detected).
  process.once('exit', markDataDirInUse(config.data.data_dir));
  warmTokenizers(configuredModels(ctx.runtime.current()));
  const app = await buildApp(ctx);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const drainMs = config.http.shutdown_drain_seconds * 1000;
    log.info(`${signal}: draining (${ctx.lifecycle.running} answers running, up to ${drainMs / 1000} s)`);
    const force = setTimeout(() => process.exit(1), drainMs + 15_000);
    force.unref();
    // Not ready from now on, so the load balancer stops sending traffic; no new asks or resumes here.
    ctx.lifecycle.beginDrain();
    // Running answers finish (or are cut off at the limit); each releases its user's lock and its slot.
    await ctx.lifecycle.settle(drainMs);
    log.info('drained: closing');
    await app.close();
    await closeContext(ctx);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  // A long listen queue: a burst of connections (thousands of clients at once) waits instead of being refused.
  try {
    await app.listen({ host: config.http.host, port: config.http.port, backlog: LISTEN_BACKLOG });
  } catch (e) {
    // (Taken meanwhile, after the check above.)
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    log.fatal(portInUse(config.http.host, config.http.port));
    process.exit(2);
  }
  log.info(
    `Chat Commons listening on http://${config.http.host}:${config.http.port} (database ${ctx.dbHandle.describe})`,
  );
}

await main();
