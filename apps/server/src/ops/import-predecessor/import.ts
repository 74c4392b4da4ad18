import type { Executor } from '../../repositories/executor';
import { nowIso } from '../../repositories/executor';
import { askLogRepository } from '../../repositories/ask-log.repository';
import { conversationRepository } from '../../repositories/conversation.repository';
import { messageRepository } from '../../repositories/message.repository';
import { quotaRepository } from '../../repositories/quota.repository';
import { userRepository } from '../../repositories/user.repository';
import { userSettingRepository } from '../../repositories/user-setting.repository';
import type { SecretBox } from '../../services/secret-box';
import { splitSettings } from '../../services/user-settings';
import { mapAskLog, mapConversation, mapSettings, mapUser, toUuid } from './map';
import type { PredecessorSql } from './read-sql';

/** What the predecessor left: its SQL rows and the documents exported from its document database. */
export interface PredecessorData {
  sql: PredecessorSql;
  /** Conversation history documents (both `*_conversation_history` collections). */
  conversations: Record<string, unknown>[];
  /** `ask_logs` documents. */
  askLogs: Record<string, unknown>[];
}

export interface ImportOptions {
  /** Report what would happen, write nothing. */
  dryRun?: boolean;
  /** The predecessor server's UTC offset in minutes (its time slots were in local time); default 0. */
  utcOffsetMinutes?: number;
}

export interface KindSummary {
  created: number;
  /** Imported by an earlier run (or a user of the same name already here). */
  already: number;
  skipped: number;
  failed: number;
}

export interface ImportSummary {
  dryRun: boolean;
  users: KindSummary;
  conversations: KindSummary;
  askLogs: KindSummary;
  /** Messages written with the created conversations. */
  messages: number;
  /** Users whose old password cannot be checked: they must be given a new one. */
  passwordResets: string[];
  /** One line per record skipped or failed, with the reason. */
  problems: string[];
}

const emptyKind = (): KindSummary => ({ created: 0, already: 0, skipped: 0, failed: 0 });

export interface ImportDeps {
  /** The target database (ours). */
  db: Executor;
  /** Seals imported custom API keys as the server does. */
  secretBox: SecretBox;
}

/**
 * Imports the predecessor's users (with settings and quota counters), conversations (with their message trees)
 * and ask logs. Each user and each conversation is written in one transaction; a bad record is reported and
 * skipped. Idempotent: users are matched by username, conversations by their uuid, ask logs by time, user,
 * conversation, source and model, so a second run adds nothing.
 */
export async function importPredecessor(
  deps: ImportDeps,
  data: PredecessorData,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const summary: ImportSummary = {
    dryRun: options.dryRun ?? false,
    users: emptyKind(),
    conversations: emptyKind(),
    askLogs: emptyKind(),
    messages: 0,
    passwordResets: [],
    problems: [],
  };
  const userIds = await importUsers(deps, data.sql, options, summary);
  await importConversations(deps, data, userIds, summary);
  await importAskLogs(deps, data.askLogs, userIds, summary);
  return summary;
}

function reason(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Predecessor user id → our id (a placeholder in a dry run: the user is not written). */
type UserIds = Map<number, number>;

async function importUsers(
  { db, secretBox }: ImportDeps,
  sql: PredecessorSql,
  options: ImportOptions,
  summary: ImportSummary,
): Promise<UserIds> {
  const ids: UserIds = new Map();
  const settingsOf = new Map(sql.settings.map((s) => [s.user_id, s]));
  const now = nowIso();
  for (const u of sql.users) {
    const label = `user ${u.id} "${u.username}"`;
    try {
      const { row, passwordReset } = mapUser(u, now);
      const existing = await userRepository(db).findByUsername(row.username);
      if (existing) {
        ids.set(u.id, existing.id);
        summary.users.already++;
        continue;
      }
      const settings = mapSettings(settingsOf.get(u.id), options.utcOffsetMinutes ?? 0);
      const { stored, counters } = splitSettings(secretBox, settings, null);
      if (options.dryRun) {
        ids.set(u.id, -u.id);
      } else {
        const created = await db.transaction().execute(async (trx) => {
          const inserted = await userRepository(trx).insert({ ...row, update_time: now });
          await userSettingRepository(trx).insert(inserted.id, stored);
          await quotaRepository(trx).replaceForUser(inserted.id, counters);
          return inserted;
        });
        ids.set(u.id, created.id);
      }
      summary.users.created++;
      if (passwordReset) summary.passwordResets.push(row.username);
    } catch (e) {
      summary.users.failed++;
      summary.problems.push(`${label}: ${reason(e)}`);
    }
  }
  return ids;
}

async function importConversations(
  { db }: ImportDeps,
  data: PredecessorData,
  userIds: UserIds,
  summary: ImportSummary,
): Promise<void> {
  const docs = new Map<string, Record<string, unknown>>();
  for (const d of data.conversations) {
    const id = toUuid(d._id ?? d.conversation_id);
    if (id) docs.set(id, d);
  }
  const rows = new Set<string>();
  /** Message id → conversation, for the ones this run imports (a dry run writes none to look up). */
  const seen = new Map<string, string>();
  const now = nowIso();
  for (const c of data.sql.conversations) {
    const uuid = toUuid(c.conversation_id) ?? String(c.conversation_id);
    rows.add(uuid);
    const label = `conversation ${uuid}`;
    try {
      if (await conversationRepository(db).findByUuid(uuid)) {
        summary.conversations.already++;
        continue;
      }
      // An owner the predecessor deleted (its rows kept a dangling id) leaves the conversation unassigned.
      const owner = c.user_id === null ? null : (userIds.get(c.user_id) ?? null);
      const mapped = mapConversation(c, docs.get(uuid), owner, now);
      if (c.user_id !== null && owner === null)
        summary.problems.push(`${label}: owner ${c.user_id} not imported, left unassigned`);
      if (!docs.has(uuid) && c.source === 'openai_api')
        summary.problems.push(`${label}: no history document, imported without messages`);
      // Message ids are unique across conversations here: one already taken would move it into this one.
      const ids = mapped.messages.map((m) => m.id);
      const taken =
        ids.filter((id) => seen.has(id)).map((id) => ({ id, conversation_id: seen.get(id) }))[0] ??
        (await messageRepository(db).findConversationsOf(ids))[0];
      if (taken)
        throw new Error(`message ${taken.id} already belongs to conversation ${taken.conversation_id}`);
      if (!summary.dryRun) {
        await db.transaction().execute(async (trx) => {
          await conversationRepository(trx).insert(mapped.row);
          await messageRepository(trx).upsert(mapped.messages);
        });
      }
      for (const id of ids) seen.set(id, uuid);
      summary.conversations.created++;
      summary.messages += mapped.messages.length;
    } catch (e) {
      summary.conversations.failed++;
      summary.problems.push(`${label}: ${reason(e)}`);
    }
  }
  for (const id of docs.keys()) {
    if (rows.has(id)) continue;
    // The predecessor's "clear all" and hard deletes removed the row but kept the document.
    summary.conversations.skipped++;
    summary.problems.push(`conversation ${id}: no conversation record (deleted in the predecessor), skipped`);
  }
}

async function importAskLogs(
  { db }: ImportDeps,
  docs: Record<string, unknown>[],
  userIds: UserIds,
  summary: ImportSummary,
): Promise<void> {
  for (const [i, doc] of docs.entries()) {
    try {
      const log = mapAskLog(doc);
      const row = {
        time: log.time,
        source: log.source,
        model: log.model,
        user_id: log.predecessorUserId === null ? null : (userIds.get(log.predecessorUserId) ?? null),
        conversation_id: log.conversation_id,
        server_id: null,
        queueing_time: log.queueing_time,
        ask_time: log.ask_time,
        // The predecessor logged only asks that got a reply, and charged each of them.
        outcome: 'success',
        charged: 1,
        error: null,
      };
      if (row.user_id !== null && row.user_id < 0) {
        summary.askLogs.created++; // dry run: its user is not written yet
        continue;
      }
      if (await askLogRepository(db).existsSame(row)) {
        summary.askLogs.already++;
        continue;
      }
      if (!summary.dryRun) await askLogRepository(db).insert(row);
      summary.askLogs.created++;
    } catch (e) {
      summary.askLogs.failed++;
      summary.problems.push(`ask log #${i + 1}: ${reason(e)}`);
    }
  }
}

/** The summary as the command prints it. */
export function formatSummary(s: ImportSummary): string {
  const verb = s.dryRun ? 'would create' : 'created';
  const line = (name: string, k: KindSummary) =>
    `${name}: ${k.created} ${verb}, ${k.already} already imported, ${k.skipped} skipped, ${k.failed} failed`;
  const lines = [
    s.dryRun ? 'Dry run: nothing was written.' : 'Import finished.',
    line('Users', s.users),
    line('Conversations', s.conversations) + ` (${s.messages} messages)`,
    line('Ask logs', s.askLogs),
  ];
  if (s.passwordResets.length)
    lines.push(
      `Accounts that need a new password (old hash format not verifiable): ${s.passwordResets.join(', ')}`,
    );
  if (s.problems.length) lines.push('Problems:', ...s.problems.map((p) => `  - ${p}`));
  return lines.join('\n');
}
