import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { ChatSource } from '@cc/contracts';
import type { AppContext, Lifecycle } from './app-context';
import type { AppConfig } from './config/bootstrap';
import type { SharedChange } from './coordination/changes';
import { createRuntimeSettings } from './config/runtime-settings';
import { loadSecrets } from './config/secrets';
import { memoryCoordination } from './coordination/memory';
import { redisCoordination } from './coordination/redis';
import { RedisScheduler } from './coordination/redis-scheduler';
import { throttleWarnings } from './coordination/warn-throttle';
import { openDb } from './db/client';
import { prepareSchema } from './db/migrate';
import { AnswerWriter } from './chat/answer-writer';
import { ActivityWriter } from './services/activity-writer';
import { StartQueue } from './chat/turns';
import { RunningAsks, SWEEP_EVERY_MS, settleInterrupted } from './chat/running-asks';
import { Scheduler } from './chat/scheduler';
import { loadCredentials, resealStoredSecrets } from './services/credentials.service';
import { createSecretBox } from './services/secret-box';
import { createMetrics } from './metrics/metrics';
import { forgetInstalledPlugins } from './services/plugin.service';
import { createUpstreamDirectory } from './services/upstream.service';
import { createAdapterRegistry } from './sources/registry';
import type { DemoUpstream } from './services/upstream.service';
import { formatAdminBanner } from './log/admin-banner';
import { setConsoleLevel } from './log/logger';
import { ensureInitialAdmin } from './services/user.service';
import { BUILTIN_TASKS, SYNC_TASK } from './tasks/builtin';
import { createTaskRunner } from './tasks/runner';
import type { TaskRunnerOptions } from './tasks/runner';

/**
 * Boot sequence shared by main.ts and the tests: open the database, create or migrate the schema, load the
 * runtime settings, start the demo upstream when nothing is configured, create the initial admin.
 */
export interface ContextOptions {
  /** Start the emulator in-process when a source has no upstream configured (default true). */
  demo?: boolean;
  /** Port of that emulator (default: the app's port + 1, see `demoEmulatorPort`; 0 = any free port). */
  demoPort?: number;
  /**
   * Run the background tasks on their schedule and re-read the shared settings every 30 s, the fallback for lost
   * change notifications (main.ts does; tests opt in). Without it the tasks still exist and run on demand
   * (admin → tasks → run now).
   */
  tasks?: TaskRunnerOptions & {
    /** Run the conversation sync once at start when `openai_web.sync_conversations_on_startup` (default true). */
    startupSync?: boolean;
  };
  /**
   * Where the one-time banner with a generated initial admin password goes (default: the console, in colour on a
   * terminal). Called at most once, at the boot that creates the admin.
   */
  announce?: (text: string) => void;
  /**
   * A SQLite file is checkpointed on a worker thread, not at commits (main.ts does; see `startCheckpointer`).
   * Default false: tests open many databases.
   */
  backgroundCheckpoints?: boolean;
  /** How long asks are admitted back to back before the event loop polls I/O, ms (default START_SLICE_MS). */
  startSliceMs?: number;
}

function announceOnConsole(text: string): void {
  process.stdout.write(text);
}

/** How often a running server re-reads the shared settings (config, credentials, servers) saved by other instances. */
const SHARED_SETTINGS_REFRESH_MS = 30_000;
const refreshTimers = new WeakMap<AppContext, NodeJS.Timeout[]>();

/** Where the demo upstream keeps its web conversations, so a restart does not lose them (nor their history). */
export const DEMO_STATE_FILE = 'demo-upstream.json';

/** The demo emulator's port: the one after the app's (8000 → 8001), so it is predictable and easy to allow. */
export function demoEmulatorPort(appPort: number): number {
  return appPort < 65535 ? appPort + 1 : 0;
}

const isAddressInUse = (e: unknown) => (e as NodeJS.ErrnoException | null)?.code === 'EADDRINUSE';

async function startDemo(config: AppConfig, log: FastifyBaseLogger, port: number): Promise<DemoUpstream> {
  const { startEmulator } = await import('@cc/upstream-emulator');
  const start = (p: number) =>
    startEmulator({
      host: '127.0.0.1',
      port: p,
      stateFile: path.join(config.data.data_dir, DEMO_STATE_FILE),
      warn: (message) => log.warn(message),
    });
  let emulator;
  let instead = '';
  try {
    emulator = await start(port);
  } catch (e) {
    // Taken (another instance on this machine, or anything else): any free port, and the notice says which.
    if (port === 0 || !isAddressInUse(e)) throw e;
    emulator = await start(0);
    instead = ` (port ${port} was taken)`;
  }
  log.warn(
    `Demo mode: the built-in upstream emulator at ${emulator.url}${instead} answers every source that has no ` +
      'upstream base URL or credentials configured, with every web model enabled. Prompts starting with ' +
      '"#browse", "#code", "#dalle", "#plugin", "#long 300", "#error" or "#fault:status=429" show the special ' +
      'answers (README, "Demo mode"). Configure credentials (admin → config) or openai_web.chatgpt_base_url / ' +
      'openai_api.openai_base_url to use a real provider.',
  );
  return {
    webBaseUrl: emulator.webBaseUrl,
    apiBaseUrl: emulator.apiBaseUrl,
    emulator,
    close: () => emulator.close(),
  };
}

/** After the drain limit, cut-off answers get this long to settle and release their locks. */
const CUT_OFF_SETTLE_MS = 5_000;

/** A process starts running; only `beginDrain` (main.ts, on SIGTERM) changes that. */
export function createLifecycle(): Lifecycle {
  let draining = false;
  const stops = new Set<() => void>();
  const drainListeners = new Set<() => void>();
  let onIdle: (() => void) | null = null;
  const untilIdle = (ms: number) =>
    new Promise<void>((resolve) => {
      if (stops.size === 0) return resolve();
      const timer = setTimeout(resolve, ms);
      onIdle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  return {
    get draining() {
      return draining;
    },
    get running() {
      return stops.size;
    },
    beginDrain() {
      if (draining) return;
      draining = true;
      for (const listener of [...drainListeners]) listener();
    },
    onDrain(listener) {
      drainListeners.add(listener);
      return () => drainListeners.delete(listener);
    },
    track(stop) {
      stops.add(stop);
      return () => {
        stops.delete(stop);
        if (stops.size === 0) onIdle?.();
      };
    },
    async settle(ms) {
      await untilIdle(ms);
      if (stops.size === 0) return;
      for (const stop of [...stops]) stop();
      await untilIdle(CUT_OFF_SETTLE_MS);
    },
  };
}

/** Reloads what another instance changed: the runtime config, the upstream directory or the plugin cache. */
async function applySharedChange(ctx: AppContext, change: SharedChange): Promise<void> {
  switch (change) {
    case 'config':
      await ctx.runtime.load();
      await ctx.upstream.refresh();
      return;
    case 'credentials':
    case 'servers':
      await ctx.upstream.refresh();
      return;
    case 'plugins':
      forgetInstalledPlugins(ctx);
      return;
  }
}

/** How often at most a failing Redis is logged (it fails on every reconnection attempt while it is down). */
const REDIS_WARN_INTERVAL_MS = 10_000;

export async function createContext(
  config: AppConfig,
  log: FastifyBaseLogger,
  options: ContextOptions = {},
): Promise<AppContext> {
  const dbHandle = openDb({
    databaseUrl: config.data.database_url,
    dataDir: config.data.data_dir,
    onQuery: config.common.print_sql ? (sql, ms) => log.debug({ ms }, sql) : undefined,
    onConnectionError: (err) => log.warn({ err }, 'An idle database connection failed; it will be replaced'),
    backgroundCheckpoints: options.backgroundCheckpoints ?? false,
    onCheckpointFailure: (err) =>
      log.warn({ err }, 'The database checkpoint worker failed; commits checkpoint the database again'),
  });
  let demo: DemoUpstream | null = null;
  try {
    const applied = await prepareSchema(dbHandle, config.data.run_migration);
    if (applied.length) log.info(`Database ${dbHandle.describe}: applied ${applied.join(', ')}`);
    const secrets = await loadSecrets(config, dbHandle.db);
    const runtime = createRuntimeSettings(config, dbHandle.db, (current) =>
      setConsoleLevel(log, current.log.console_log_level),
    );
    await runtime.load();
    const secretBox = createSecretBox(secrets.credentialsKey, secrets.previousCredentialsKeys);
    const resealed = await resealStoredSecrets(
      { dbHandle, secretBox, log },
      secrets.previousCredentialsKeys.length > 0,
    );
    if (resealed > 0)
      log.info(`Key rotation: ${resealed} stored secret(s) sealed again with the current key`);
    const credentials = await loadCredentials({ dbHandle, secretBox, log });
    const live = runtime.current();
    const needsDemo =
      (!live.openai_web.chatgpt_base_url && !credentials.openai_web_access_token) ||
      (!live.openai_api.openai_base_url && !credentials.openai_api_key);
    demo =
      options.demo !== false && needsDemo
        ? await startDemo(config, log, options.demoPort ?? demoEmulatorPort(config.http.port))
        : null;
    const upstream = createUpstreamDirectory({ dbHandle, secretBox, runtime, log }, demo);
    await upstream.refresh();
    const servers = (source: string) => upstream.servers(source as ChatSource);
    const tasks = createTaskRunner<AppContext>(
      { db: dbHandle.db, runtime, log },
      BUILTIN_TASKS,
      options.tasks,
    );
    // One throttle for every Redis client of this process: an outage logs one warning per interval, not a flood.
    const onRedisError = throttleWarnings(
      (err, suppressed) => log.warn({ err, suppressed }, 'Redis error'),
      REDIS_WARN_INTERVAL_MS,
    );
    const scheduler = config.data.redis_url
      ? new RedisScheduler(config.data.redis_url, config.data.redis_prefix, servers, {
          onError: onRedisError,
        })
      : new Scheduler(servers);
    const instanceId = randomUUID();
    const ctx: AppContext = {
      config,
      runtime,
      dbHandle,
      secrets,
      secretBox,
      coordination: config.data.redis_url
        ? redisCoordination(config.data.redis_url, config.data.redis_prefix, onRedisError)
        : memoryCoordination(),
      upstream,
      adapters: createAdapterRegistry(),
      scheduler,
      metrics: createMetrics({ queueWaiting: async (source) => (await scheduler.snapshot(source)).waiting }),
      demo,
      log,
      startupTime: new Date().toISOString(),
      tasks,
      lifecycle: createLifecycle(),
      instanceId,
      running: new RunningAsks({ dbHandle, log }, instanceId),
      answers: new AnswerWriter(dbHandle.db, log),
      activity: new ActivityWriter(dbHandle.db, log),
      starts: new StartQueue({ sliceMs: options.startSliceMs }),
    };
    await Promise.all([ctx.coordination.ready?.(), ctx.scheduler.ready?.()]);
    const generated = await ensureInitialAdmin(ctx);
    if (generated) {
      const color = !options.announce && process.stdout.isTTY === true;
      (options.announce ?? announceOnConsole)(formatAdminBanner({ ...generated, color }));
    }
    // Changes saved through another instance are in force here within a second (the periodic refresh below is
    // the fallback when a notification is lost).
    ctx.coordination.changes.subscribe((change) => applySharedChange(ctx, change));
    ctx.coordination.changes.on('failed', (change, err) =>
      log.warn({ err, change }, 'A settings change from another instance was not applied'),
    );
    if (options.tasks) {
      const startupSync =
        options.tasks.startupSync !== false && ctx.runtime.current().openai_web.sync_conversations_on_startup;
      ctx.tasks.start(ctx, startupSync ? [SYNC_TASK] : []);
      const timer = setInterval(() => {
        ctx.runtime
          .load()
          .then(() => ctx.upstream.refresh())
          .catch((err: unknown) => log.warn({ err }, 'shared settings not refreshed'));
      }, SHARED_SETTINGS_REFRESH_MS);
      timer.unref();
      // The asks of instances that died (or of this one's previous run) are settled as interrupted.
      const sweep = () =>
        settleInterrupted(ctx).catch((err: unknown) => log.warn({ err }, 'settling interrupted asks failed'));
      void sweep();
      const sweeper = setInterval(() => void sweep(), SWEEP_EVERY_MS);
      sweeper.unref();
      refreshTimers.set(ctx, [timer, sweeper]);
    }
    return ctx;
  } catch (e) {
    await demo?.close();
    await dbHandle.close();
    throw e;
  }
}

export async function closeContext(ctx: AppContext): Promise<void> {
  for (const timer of refreshTimers.get(ctx) ?? []) clearInterval(timer);
  ctx.running.close();
  await ctx.answers.close();
  await ctx.activity.close();
  await ctx.tasks.stop();
  await ctx.demo?.close();
  await ctx.scheduler.close();
  await ctx.coordination.close();
  await ctx.dbHandle.close();
}
