import type { SyncSummary } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { syncOpenaiWebConversations } from '../services/conversation-sync.service';
import { purgeExpiredData } from '../services/retention.service';
import { runServerHealthChecks } from '../services/server.service';
import type { TaskDefinition, TaskResult } from './runner';

export const SYNC_TASK = 'sync_openai_web_conversations';
export const HEALTH_TASK = 'server_health_check';
export const RETENTION_TASK = 'stats_retention';

/** The sync's run output; the summary keys are translated by the admin task page (task.output.*). */
export function describeSync(s: SyncSummary): TaskResult {
  switch (s.stopped) {
    case 'upstream_empty':
      return {
        text: `stopped, nothing changed: the upstream listed no conversations while ${s.valid} are valid here`,
        summary: { key: 'syncUpstreamEmpty', params: { valid: s.valid } },
      };
    case 'too_many_missing':
      return {
        text:
          `stopped, nothing changed: ${s.missing} of ${s.valid} valid conversations are missing upstream ` +
          '(more than half); invalidate them by hand if that is right',
        summary: { key: 'syncTooManyMissing', params: { missing: s.missing, valid: s.valid } },
      };
    case null:
      return {
        text: `fetched ${s.fetched}, updated ${s.updated}, invalidated ${s.invalidated}, inserted ${s.inserted}`,
        summary: {
          key: 'syncDone',
          params: {
            fetched: s.fetched,
            updated: s.updated,
            invalidated: s.invalidated,
            inserted: s.inserted,
          },
        },
      };
  }
}

/** The built-in background tasks (ARCHITECTURE §6). */
export const BUILTIN_TASKS: readonly TaskDefinition<AppContext>[] = [
  {
    name: SYNC_TASK,
    description:
      'Sync openai_web conversations from the account: missing ones become invalid, unknown ones are added unassigned.',
    defaults: (config) => ({
      enabled: config.openai_web.sync_conversations_schedule,
      intervalSeconds: config.openai_web.sync_conversations_schedule_interval_hours * 3600,
    }),
    run: async (ctx: AppContext) => describeSync(await syncOpenaiWebConversations(ctx)),
  },
  {
    name: HEALTH_TASK,
    description:
      'Probe every upstream server that is not disabled: reachable ones go online, failing ones offline.',
    defaults: () => ({ enabled: true, intervalSeconds: 60 }),
    run: (ctx: AppContext) => runServerHealthChecks(ctx),
  },
  {
    name: RETENTION_TASK,
    description:
      'Purge request and ask logs and audit entries past their TTL, expired sessions, old rate-limit events, old task runs and old shared-cap places.',
    defaults: () => ({ enabled: true, intervalSeconds: 3600 }),
    async run(ctx: AppContext) {
      const p = await purgeExpiredData(ctx);
      const counts = Object.entries(p) as [string, number][];
      return {
        text: `deleted ${counts.map(([k, n]) => `${n} ${k}`).join(', ')}`,
        summary: { key: 'retentionDone', params: { total: counts.reduce((a, [, n]) => a + n, 0) } },
      };
    },
  },
];
