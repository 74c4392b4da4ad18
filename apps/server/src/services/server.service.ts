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
import { diffChanges, recordAudit } from './audit.service';
import type { AuditActor } from './audit.service';
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

/** A server's settings as the audit log compares them. */
function auditedServer(row: ServerRow) {
  return {
    source: row.source,
    hostname: row.hostname,
    ip_address: row.ip_address,
    port: row.port,
    base_path: row.base_path,
    use_tls: row.use_tls === 1,
    status: row.status,
    weight: row.weight,
    max_concurrency: row.max_concurrency,
  };
}

/** Fields that decide where the requests go: changing one needs a new check before the server takes traffic. */
const ADDRESS_FIELDS = ['source', 'hostname', 'ip_address', 'port', 'base_path', 'use_tls'] as const;

/**
 * Adds a server. One asked to be online is stored offline and checked at once: it takes traffic only when the
 * check passes (otherwise it stays offline with the error, and the health task keeps trying).
 */
export async function addServer(
  ctx: AppContext,
  input: MachineCreate,
  actor?: AuditActor,
): Promise<ServerRow> {
  const inserted = await serverRepository(ctx.dbHandle.db).insert({
    source: input.source,
    hostname: input.hostname,
    ip_address: input.ip_address,
    port: input.port,
    base_path: input.base_path,
    use_tls: int(input.use_tls),
    status: input.status === 'online' ? 'offline' : input.status,
    weight: input.weight,
    max_concurrency: input.max_concurrency,
    last_check_time: null,
    last_error: null,
    create_time: nowIso(),
  });
  const row = input.status === 'online' ? await checkServer(ctx, inserted) : inserted;
  await recordAudit(ctx, actor, {
    action: 'server.create',
    targetType: 'server',
    targetId: row.id,
    targetLabel: row.hostname,
    changes: diffChanges(null, auditedServer(row)),
  });
  await ctx.upstream.refresh();
  announceChange(ctx, 'servers');
  return row;
}

/**
 * Edits a server. When it is to be online and its address changed (or it is being brought online), it is taken
 * offline and checked first: it takes traffic again only when the check passes.
 */
export async function updateServer(
  ctx: AppContext,
  input: MachineUpdate,
  actor?: AuditActor,
): Promise<ServerRow> {
  const repo = serverRepository(ctx.dbHandle.db);
  const { id, use_tls, ...rest } = input;
  const before = await repo.findById(id);
  if (!before) throw fail.notFound(ERROR_DETAILS.serverNotFound);
  const patch = { ...rest, ...(use_tls === undefined ? {} : { use_tls: int(use_tls) }) };
  const wantsOnline = (input.status ?? before.status) === 'online';
  const moved = ADDRESS_FIELDS.some((f) => patch[f] !== undefined && patch[f] !== before[f]);
  const needsCheck = wantsOnline && (moved || before.status !== 'online');
  const updated = await repo.update(id, needsCheck ? { ...patch, status: 'offline' } : patch);
  if (!updated) throw fail.notFound(ERROR_DETAILS.serverNotFound);
  const row = needsCheck ? await checkServer(ctx, updated) : updated;
  await recordAudit(ctx, actor, {
    action: 'server.update',
    targetType: 'server',
    targetId: id,
    targetLabel: before.hostname,
    changes: diffChanges(auditedServer(before), auditedServer(row)),
  });
  await ctx.upstream.refresh();
  announceChange(ctx, 'servers');
  return row;
}

export async function deleteServer(ctx: AppContext, id: number, actor?: AuditActor): Promise<void> {
  await ctx.dbHandle.db.transaction().execute(async (trx) => {
    const repo = serverRepository(trx);
    const before = await repo.findById(id);
    if (!before || !(await repo.delete(id))) throw fail.notFound(ERROR_DETAILS.serverNotFound);
    const changes = diffChanges(auditedServer(before), null);
    const target = { targetType: 'server' as const, targetId: id, targetLabel: before.hostname };
    await recordAudit(ctx, actor, { action: 'server.delete', ...target, changes }, trx);
  });
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

/** Probes one server and stores the outcome: online, or offline with the error. Returns the stored row. */
async function checkServer(ctx: AppContext, row: ServerRow): Promise<ServerRow> {
  const repo = serverRepository(ctx.dbHandle.db);
  let patch: { status: string; last_error: string | null };
  try {
    await probe(ctx, row);
    patch = { status: 'online', last_error: null };
  } catch (e) {
    patch = { status: 'offline', last_error: String((e as Error).message ?? e).slice(0, 500) };
  }
  return (await repo.update(row.id, { ...patch, last_check_time: nowIso() })) ?? { ...row, ...patch };
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
      const checked = await checkServer(ctx, row);
      return checked.status === 'online'
        ? { online: true, text: `${row.hostname}: online` }
        : { online: false, text: `${row.hostname}: offline (${checked.last_error ?? ''})` };
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
