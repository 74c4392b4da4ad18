import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AskStatsBucket,
  AuditPage,
  AuditQuery,
  CompletionLog,
  CompletionLogQuery,
  ConfigSaved,
  ConfigSchemas,
  ConfigRead,
  ConfigWrite,
  CredentialsRead,
  CredentialsWrite,
  RequestStatsBucket,
  ServerLogQuery,
  StatsQuery,
  SyncSummary,
  SystemInfo,
  TaskNameParams,
  TaskRead,
  TaskRun,
  TaskRunsQuery,
  TaskUpdate,
  UsageQuery,
  UsageReport,
  envelope,
} from '@cc/contracts';
import type { AppContext } from '../app-context';
import { auditActor } from '../http/audit-actor';
import { ok, okJson, sendJsonText } from '../http/envelope';
import { exportAuditCsv, listAudit } from '../services/audit.service';
import { runTaskNow, runTaskWith, updateTask } from '../services/task.service';
import { syncOpenaiWebConversations } from '../services/conversation-sync.service';
import { completionLogs, serverLogLines } from '../services/log.service';
import { askStatsJson, requestStatsJson, systemInfo } from '../services/stats.service';
import { usageCsv, usageReport } from '../services/usage.service';
import { SYNC_TASK, describeSync } from '../tasks/builtin';
import {
  configSchemas,
  presentConfig,
  readCredentials,
  saveSystemConfig,
  writeCredentials,
} from '../services/system-config.service';

/**
 * Admin → system, tasks, logs, config (servers are in machine.routes.ts). Every route is superuser-only. Bodies
 * are never logged here: the config and credentials carry secrets.
 */
export function systemRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const config = { access: 'superuser' as const };

  r.get(
    '/api/system/info',
    { config, schema: { tags: ['system'], response: { 200: envelope(SystemInfo) } } },
    async () => ok(await systemInfo(ctx)),
  );

  r.get(
    '/api/system/stats/request',
    {
      config,
      schema: {
        tags: ['system'],
        querystring: StatsQuery,
        response: { 200: envelope(z.array(RequestStatsBucket)) },
      },
    },
    // Built as JSON text (tens of thousands of buckets): sent as is, past the schema's serializer.
    async (request, reply) => sendJsonText(reply, okJson(await requestStatsJson(ctx, request.query))),
  );

  r.get(
    '/api/system/stats/ask',
    {
      config,
      schema: {
        tags: ['system'],
        querystring: StatsQuery,
        response: { 200: envelope(z.array(AskStatsBucket)) },
      },
    },
    async (request, reply) => sendJsonText(reply, okJson(await askStatsJson(ctx, request.query))),
  );

  r.post(
    '/api/system/action/sync-openai-web-conv',
    { config, schema: { tags: ['system'], response: { 200: envelope(SyncSummary) } } },
    // Through the task runner: one sync at a time (with the scheduled one too), recorded in the task's history.
    async (request) =>
      ok(
        await runTaskWith(
          ctx,
          SYNC_TASK,
          () => syncOpenaiWebConversations(ctx),
          describeSync,
          auditActor(request),
        ),
      ),
  );

  // tasks
  r.get(
    '/api/system/queryTask',
    { config, schema: { tags: ['tasks'], response: { 200: envelope(z.array(TaskRead)) } } },
    async () => ok(await ctx.tasks.list()),
  );

  r.post(
    '/api/system/task/:name/run',
    { config, schema: { tags: ['tasks'], params: TaskNameParams, response: { 200: envelope(TaskRun) } } },
    async (request) => ok(await runTaskNow(ctx, request.params.name, auditActor(request))),
  );

  r.get(
    '/api/system/task/:name/runs',
    {
      config,
      schema: {
        tags: ['tasks'],
        params: TaskNameParams,
        querystring: TaskRunsQuery,
        response: { 200: envelope(z.array(TaskRun)) },
      },
    },
    async (request) => ok(await ctx.tasks.runs(request.params.name, request.query.limit)),
  );

  r.patch(
    '/api/system/task/:name',
    {
      config,
      schema: {
        tags: ['tasks'],
        params: TaskNameParams,
        body: TaskUpdate,
        response: { 200: envelope(TaskRead) },
      },
    },
    async (request) => ok(await updateTask(ctx, request.params.name, request.body, auditActor(request))),
  );

  // logs (the viewer polls these: their requests are not logged at INFO)
  r.post(
    '/api/system/logs/server',
    {
      config,
      logLevel: 'warn',
      schema: {
        tags: ['logs'],
        body: ServerLogQuery.prefault({}),
        response: { 200: envelope(z.array(z.string())) },
      },
    },
    async (request) => ok((await serverLogLines(ctx, request.body)).lines),
  );

  r.get(
    '/api/system/logs/completions',
    {
      config,
      logLevel: 'warn',
      schema: {
        tags: ['logs'],
        querystring: CompletionLogQuery,
        response: { 200: envelope(z.array(CompletionLog)) },
      },
    },
    async (request) => ok(await completionLogs(ctx, request.query)),
  );

  // config and credentials
  r.get(
    '/api/system/config',
    { config, schema: { tags: ['config'], response: { 200: envelope(ConfigRead) } } },
    async () => ok(presentConfig(ctx)),
  );

  r.put(
    '/api/system/config',
    { config, schema: { tags: ['config'], body: ConfigWrite, response: { 200: envelope(ConfigSaved) } } },
    async (request) => ok(await saveSystemConfig(ctx, request.body, auditActor(request))),
  );

  r.get(
    '/api/system/config/schema',
    { config, schema: { tags: ['config'], response: { 200: envelope(ConfigSchemas) } } },
    async () => ok(configSchemas()),
  );

  r.get(
    '/api/system/credentials',
    { config, schema: { tags: ['config'], response: { 200: envelope(CredentialsRead) } } },
    async () => ok(await readCredentials(ctx)),
  );

  r.put(
    '/api/system/credentials',
    {
      config,
      schema: { tags: ['config'], body: CredentialsWrite, response: { 200: envelope(CredentialsRead) } },
    },
    async (request) => ok(await writeCredentials(ctx, request.body, auditActor(request))),
  );

  // audit log (read-only: no route edits or deletes entries)
  r.get(
    '/api/system/audit',
    {
      config,
      schema: {
        tags: ['audit'],
        summary: 'Audit log entries, newest first, filtered by actor, action, target and time',
        querystring: AuditQuery,
        response: { 200: envelope(AuditPage) },
      },
    },
    async (request) => ok(await listAudit(ctx, request.query)),
  );

  r.get(
    '/api/system/audit.csv',
    {
      config,
      schema: {
        tags: ['audit'],
        summary: 'The matching audit log entries as CSV (same filters, paging ignored)',
        querystring: AuditQuery,
      },
    },
    async (request, reply) => {
      const csv = await exportAuditCsv(ctx, request.query);
      const stamp = new Date().toISOString().slice(0, 10);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="audit-${stamp}.csv"`)
        .header('cache-control', 'no-store')
        .send(`\uFEFF${csv}`);
    },
  );

  // usage per user, model or day
  r.get(
    '/api/system/usage',
    {
      config,
      schema: {
        tags: ['usage'],
        summary: 'Asks, tokens, mean queue and answer times and errors, grouped by user, model or UTC day',
        querystring: UsageQuery,
        response: { 200: envelope(UsageReport) },
      },
    },
    async (request) => ok(await usageReport(ctx, request.query)),
  );

  r.get(
    '/api/system/usage.csv',
    {
      config,
      schema: { tags: ['usage'], summary: 'The same usage report as CSV', querystring: UsageQuery },
    },
    async (request, reply) => {
      const csv = await usageCsv(ctx, request.query);
      const stamp = new Date().toISOString().slice(0, 10);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="usage-${request.query.group}-${stamp}.csv"`)
        .header('cache-control', 'no-store')
        .send(`\uFEFF${csv}`);
    },
  );
}
