import type { Migration } from 'kysely';
import type { DialectName } from '../client';
import { foundation } from './2026-11-22-01-foundation';
import { chat } from './2026-11-22-02-chat';
import { admin } from './2026-11-22-03-admin';
import { files } from './2026-11-22-04-files';
import { messageFiles } from './2026-11-23-01-message-files';
import { audit } from './2026-11-23-04-audit';
import { taskSummaries } from './2026-11-23-05-task-summaries';
import { stats } from './2026-11-23-11-stats';

/** The one migration list, oldest first. Names sort by date; never rename or edit a landed one. */
export function migrationList(dialect: DialectName): Record<string, Migration> {
  return {
    '2026-11-22-01-foundation': foundation(dialect),
    '2026-11-22-02-chat': chat(dialect),
    '2026-11-22-03-admin': admin(dialect),
    '2026-11-22-04-files': files(),
    '2026-11-23-01-message-files': messageFiles(),
    '2026-11-23-04-audit': audit(dialect),
    '2026-11-23-05-task-summaries': taskSummaries(),
    '2026-11-23-11-stats': stats(dialect),
  };
}
