import type { Migration } from 'kysely';
import type { DialectName } from '../client';
import { foundation } from './2026-11-22-01-foundation';
import { chat } from './2026-11-22-02-chat';
import { admin } from './2026-11-22-03-admin';
import { files } from './2026-11-22-04-files';
import { messageFiles } from './2026-11-23-01-message-files';
import { leases } from './2026-11-23-03-leases';
import { audit } from './2026-11-23-04-audit';
import { taskSummaries } from './2026-11-23-05-task-summaries';
import { search } from './2026-11-23-06-search';
import { shares } from './2026-11-23-07-shares';
import { usage } from './2026-11-23-08-usage';
import { groups } from './2026-11-23-10-groups';
import { stats } from './2026-11-23-11-stats';
import { budgets } from './2026-11-25-01-budgets';
import { signIn } from './2026-11-25-02-sign-in';
import { pins } from './2026-11-25-03-pins';
import { listOrder } from './2026-11-25-04-list-order';
import { searchOrder } from './2026-11-26-02-search-order';
import { statsRollupIds } from './2026-11-26-03-stats-rollup-ids';
import { searchWhenFinished } from './2026-11-26-04-search-when-finished';
import { titleOrder } from './2026-11-28-01-title-order';
import { selfClaimed } from './2026-11-29-01-self-claimed';
import { runningAsksAnswered } from './2026-11-29-02-running-asks-answered';

/** The one migration list, oldest first. Names sort by date; never rename or edit a landed one. */
export function migrationList(dialect: DialectName): Record<string, Migration> {
  return {
    '2026-11-22-01-foundation': foundation(dialect),
    '2026-11-22-02-chat': chat(dialect),
    '2026-11-22-03-admin': admin(dialect),
    '2026-11-22-04-files': files(),
    '2026-11-23-01-message-files': messageFiles(),
    '2026-11-23-03-leases': leases(dialect),
    '2026-11-23-04-audit': audit(dialect),
    '2026-11-23-05-task-summaries': taskSummaries(),
    '2026-11-23-06-search': search(dialect),
    '2026-11-23-07-shares': shares(dialect),
    '2026-11-23-08-usage': usage(),
    '2026-11-23-10-groups': groups(dialect),
    '2026-11-23-11-stats': stats(dialect),
    '2026-11-25-01-budgets': budgets(dialect),
    '2026-11-25-02-sign-in': signIn(dialect),
    '2026-11-25-03-pins': pins(),
    '2026-11-25-04-list-order': listOrder(),
    '2026-11-26-02-search-order': searchOrder(dialect),
    '2026-11-26-03-stats-rollup-ids': statsRollupIds(dialect),
    '2026-11-26-04-search-when-finished': searchWhenFinished(dialect),
    '2026-11-28-01-title-order': titleOrder(),
    '2026-11-29-01-self-claimed': selfClaimed(),
    '2026-11-29-02-running-asks-answered': runningAsksAnswered(),
  };
}
