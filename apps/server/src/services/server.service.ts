import { ERROR_DETAILS } from '@cc/contracts';
import type { ChatSource, MachineCreate, MachineInfo, MachineUpdate } from '@cc/contracts';
import type { AppContext } from '../app-context';
import type { ServerRow } from '../db/schema';
import { fail } from '../errors/app-error';
import { presentMachine } from '../presenters/machine.presenter';
import { int, nowIso } from '../repositories/executor';
import { serverRepository } from '../repositories/server.repository';
import { ensureOk, joinUrl, upstreamRequest } from '../sources/http';
import type { TaskResult } from '../tasks/runner';
import { serverBaseUrl } from './upstream.service';
import { announceChange } from './shared-changes.service';

export async function listServers(
  ctx: AppContext,
  filter: { id?: number; source?: ChatSource; status?: string } = {},
) {
  const rows = await serverRepository(ctx.dbHandle.db).listAll();
  return rows.filter(
    (r) =>
      (filter.id === undefined || r.id === filter.id) &&
      (!filter.source || r.source === filter.source) &&
      (!filter.status || r.status === filter.status),
  );
}

/** Adds a server; the scheduler uses it at once. */
export async function addServer(ctx: AppContext, input: MachineCreate): Promise<ServerRow> {
  const row = await serverRepository(ctx.dbHandle.db).insert({
    source: input.source,
    hostname: input.hostname,
    ip_address: input.ip_address,
    port: input.port,
    base_path: input.base_path,
    use_tls: int(input.use_tls),
    status: input.status,
    weight: input.weight,
    max_concurrency: input.max_concurrency,
    last_check_time: null,
    last_error: null,
    create_time: nowIso(),
  });
  await ctx.upstream.refresh();
  announceChange(ctx, 'servers');
  return row;
}

export async function updateServer(ctx: AppContext, input: MachineUpdate): Promise<ServerRow> {
  const { id, use_tls, ...rest } = input;
  const patch = { ...rest, ...(use_tls === undefined ? {} : { use_tls: int(use_tls) }) };
  const row = await serverRepository(ctx.dbHandle.db).update(id, patch);
  if (!row) throw fail.notFound(ERROR_DETAILS.serverNotFound);
  await ctx.upstream.refresh();
  announceChange(ctx, 'servers');
  return row;
}

export async function deleteServer(ctx: AppContext, id: number): Promise<void> {
  if (!(await serverRepository(ctx.dbHandle.db).delete(id)))
    throw fail.notFound(ERROR_DETAILS.serverNotFound);
  await ctx.upstream.refresh();
  announceChange(ctx, 'servers');
}

/** Servers with what the scheduler sees now: asks in flight on each, and the source's queue length. */
export async function serverInfo(ctx: AppContext, id?: number): Promise<MachineInfo[]> {
  const rows = await listServers(ctx, { id });
  if (id !== undefined && rows.length === 0) throw fail.notFound(ERROR_DETAILS.serverNotFound);
  return Promise.all(
    rows.map(async (r) => {
      const snap = await ctx.scheduler.snapshot(r.source);
      return {
        ...presentMachine(r),
        in_flight: snap.inFlight[`db:${r.id}`] ?? 0,
        queue_length: snap.waiting,
      };
    }),
  );
}

/** One probe: the web account check or the model list, with the source's credentials. */
async function probe(ctx: AppContext, row: ServerRow): Promise<void> {
  const source = row.source as ChatSource;
  const target = ctx.upstream.target(source, { id: row.id, baseUrl: serverBaseUrl(row) });
  const path = source === 'openai_web' ? 'accounts/check/v4-2023-04-27' : 'models';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  const res = await ensureOk(
    await upstreamRequest(
      joinUrl(target.baseUrl, path),
      { method: 'GET', headers },
      {
        connectTimeoutMs: target.connectTimeoutMs,
        readTimeoutMs: Math.min(target.readTimeoutMs, 15_000),
        proxy: target.proxy,
      },
    ),
  );
  await res.text();
}

/**
 * Probes every server that is not disabled: reachable ones go online, failing ones offline with the error. The
 * scheduler sees the result at once. Returns a one-line summary (the task's output).
 */
export async function runServerHealthChecks(ctx: AppContext): Promise<TaskResult> {
  const repo = serverRepository(ctx.dbHandle.db);
  const rows = (await repo.listAll()).filter((r) => r.status !== 'disabled');
  if (rows.length === 0) return { text: 'no servers configured', summary: { key: 'healthNone', params: {} } };
  const results = await Promise.all(
    rows.map(async (row) => {
      try {
        await probe(ctx, row);
        await repo.update(row.id, { status: 'online', last_error: null, last_check_time: nowIso() });
        return { online: true, text: `${row.hostname}: online` };
      } catch (e) {
        const message = String((e as Error).message ?? e).slice(0, 500);
        await repo.update(row.id, { status: 'offline', last_error: message, last_check_time: nowIso() });
        return { online: false, text: `${row.hostname}: offline (${message})` };
      }
    }),
  );
  await ctx.upstream.refresh();
  announceChange(ctx, 'servers');
  const online = results.filter((r) => r.online).length;
  return {
    text: results.map((r) => r.text).join('; '),
    summary: { key: 'healthDone', params: { online, offline: results.length - online } },
  };
}
