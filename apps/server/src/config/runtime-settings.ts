import { Config } from '@cc/contracts';
import type { AppConfig } from './bootstrap';
import type { Executor } from '../repositories/executor';
import { settingsRepository } from '../repositories/settings.repository';

const KEY = 'config';

/**
 * The live configuration: the bootstrap config with the admin's saved changes on top. The saved part lives in
 * the database, so several instances share it. Bootstrap-only keys (listen address, database, secrets) keep the
 * bootstrap value whatever is saved.
 */
export function createRuntimeSettings(
  bootstrap: AppConfig,
  db: Executor,
  /** Hears the config in force after each load and save (the console's log level follows it). */
  onChange: (config: Config) => void = () => undefined,
) {
  let current: Config = bootstrap;
  const repo = settingsRepository(db);

  function merge(saved: unknown): Config {
    const parsed = Config.safeParse(saved);
    if (!parsed.success) return bootstrap;
    return { ...parsed.data, http: bootstrap.http, data: bootstrap.data, auth: bootstrap.auth };
  }

  return {
    /** The config in force now (synchronous; refreshed by `load` and `save`). */
    current(): Config {
      return current;
    },
    async load(): Promise<Config> {
      const raw = await repo.get(KEY);
      current = raw ? merge(JSON.parse(raw)) : bootstrap;
      onChange(current);
      return current;
    },
    async save(next: Config): Promise<Config> {
      await repo.put(KEY, JSON.stringify(next));
      current = merge(next);
      onChange(current);
      return current;
    },
  };
}
export type RuntimeSettings = ReturnType<typeof createRuntimeSettings>;
