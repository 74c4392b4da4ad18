import { ERROR_DETAILS, WEB_MODELS } from '@cc/contracts';
import type { ChatSource, Config, Credentials } from '@cc/contracts';
import type { Emulator } from '@cc/upstream-emulator';
import type { ServerSlot } from '../coordination/queue';
import type { RuntimeSettings } from '../config/runtime-settings';
import type { ServerRow } from '../db/schema';
import { fail } from '../errors/app-error';
import { serverRepository } from '../repositories/server.repository';
import type { UpstreamTarget } from '../sources/types';
import { loadCredentials } from './credentials.service';
import type { CredentialsDeps } from './credentials.service';

/** Base URLs of the in-process demo upstream, when it runs. */
export interface DemoUpstream {
  webBaseUrl: string;
  apiBaseUrl: string;
  /** The emulator itself (tests drive its knobs and faults). */
  emulator: Emulator;
  close(): Promise<void>;
}

const OPENAI_API_DEFAULT = 'https://api.openai.com/v1/';

/** Base URL of a servers row. */
export function serverBaseUrl(r: Pick<ServerRow, 'use_tls' | 'ip_address' | 'port' | 'base_path'>): string {
  const path = r.base_path.startsWith('/') ? r.base_path : `/${r.base_path}`;
  // A bare IPv6 address goes in brackets in a URL.
  const host =
    r.ip_address.includes(':') && !r.ip_address.startsWith('[') ? `[${r.ip_address}]` : r.ip_address;
  return `${r.use_tls ? 'https' : 'http'}://${host}:${r.port}${path}`;
}

/** What the directory reads: the servers and credentials (database, secret box) and the live config. */
export interface UpstreamDirectoryDeps extends CredentialsDeps {
  runtime: Pick<RuntimeSettings, 'current'>;
}

/**
 * Where each source's asks go: the servers rows of that source, or, with none defined, the configured base URL as
 * the single server. With neither a base URL nor credentials, the demo upstream.
 */
export function createUpstreamDirectory(ctx: UpstreamDirectoryDeps, demo: DemoUpstream | null) {
  let rows: ServerRow[] = [];
  let credentials: Credentials = { openai_web_access_token: null, openai_api_key: null };

  function defaultBaseUrl(source: ChatSource, config: Config): string | null {
    if (source === 'openai_web') return config.openai_web.chatgpt_base_url ?? demo?.webBaseUrl ?? null;
    return (
      config.openai_api.openai_base_url ??
      (credentials.openai_api_key ? OPENAI_API_DEFAULT : (demo?.apiBaseUrl ?? null))
    );
  }

  /** True while the demo upstream answers this source (nothing configured for it, no servers rows). */
  function isDemo(source: ChatSource): boolean {
    const config = ctx.runtime.current();
    const configured =
      source === 'openai_web' ? config.openai_web.chatgpt_base_url : config.openai_api.openai_base_url;
    const token = source === 'openai_web' ? credentials.openai_web_access_token : credentials.openai_api_key;
    return !!demo && !configured && !token && rows.every((r) => r.source !== source);
  }

  return {
    /** Re-reads servers and credentials (boot, and after an admin change). */
    async refresh(): Promise<void> {
      rows = await serverRepository(ctx.dbHandle.db).listAll();
      credentials = await loadCredentials(ctx);
    },
    credentials: () => credentials,
    isDemo,
    /**
     * The live config as asks and users see it: while the demo upstream answers openai_web, every web model is
     * enabled (the emulator answers them all, DALL·E included), whatever `openai_web.enabled_models` says.
     */
    effectiveConfig(): Config {
      const config = ctx.runtime.current();
      if (!isDemo('openai_web')) return config;
      return { ...config, openai_web: { ...config.openai_web, enabled_models: [...WEB_MODELS] } };
    },
    /** Online servers of a source, for the scheduler. */
    servers(source: ChatSource): ServerSlot[] {
      const config = ctx.runtime.current();
      const capacity =
        source === 'openai_web'
          ? config.openai_web.max_completion_concurrency
          : config.openai_api.max_completion_concurrency;
      const mine = rows.filter((r) => r.source === source);
      if (mine.length > 0) {
        return mine
          .filter((r) => r.status === 'online')
          .map((r) => ({
            key: `db:${r.id}`,
            id: r.id,
            baseUrl: serverBaseUrl(r),
            capacity: r.max_concurrency,
            weight: Math.max(1, r.weight),
          }));
      }
      const base = defaultBaseUrl(source, config);
      return base ? [{ key: `default:${source}`, id: null, baseUrl: base, capacity, weight: 1 }] : [];
    },
    /** Connection details for a server slot (token, proxy, timeouts). */
    target(source: ChatSource, slot: { id: number | null; baseUrl: string }): UpstreamTarget {
      const config = ctx.runtime.current();
      if (source === 'openai_web') {
        return {
          baseUrl: slot.baseUrl,
          serverId: slot.id,
          token: credentials.openai_web_access_token,
          proxy: config.openai_web.proxy,
          connectTimeoutMs: config.openai_web.common_timeout * 1000,
          readTimeoutMs: config.openai_web.ask_timeout * 1000,
        };
      }
      return {
        baseUrl: slot.baseUrl,
        serverId: slot.id,
        token: credentials.openai_api_key,
        proxy: config.openai_api.proxy,
        connectTimeoutMs: config.openai_api.connect_timeout * 1000,
        readTimeoutMs: config.openai_api.read_timeout * 1000,
      };
    },
    /** The web source's first server, for non-ask calls (history, titles, plugins, files). */
    webTarget(serverId: number | null = null): UpstreamTarget {
      const servers = this.servers('openai_web');
      const slot = servers.find((s) => s.id === serverId) ?? servers[0];
      if (!slot) throw fail.config(ERROR_DETAILS.noWebUpstream);
      const t = this.target('openai_web', slot);
      return { ...t, readTimeoutMs: t.connectTimeoutMs };
    },
  };
}
export type UpstreamDirectory = ReturnType<typeof createUpstreamDirectory>;
