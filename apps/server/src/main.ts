import { ConfigError, loadConfig } from './config/bootstrap';
import { buildApp } from './app';
import { closeContext, createContext } from './context';
import { PendingMigrationsError } from './db/migrate';
import { createLogger } from './log/logger';
import { markDataDirInUse } from './ops/data-dir';
import { limitHeapGrowth } from './ops/heap';
import { configuredModels, warmTokenizers } from './sources/tokens';

/** Connections the kernel keeps waiting for accept (capped by net.core.somaxconn). */
const LISTEN_BACKLOG = 4096;

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
  await app.listen({ host: config.http.host, port: config.http.port, backlog: LISTEN_BACKLOG });
  log.info(
    `Chat Commons listening on http://${config.http.host}:${config.http.port} (database ${ctx.dbHandle.describe})`,
  );
}

await main();
