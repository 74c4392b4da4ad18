import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import { Zip, ZipDeflate } from 'fflate';
import { messageText, withoutInvisible } from '@cc/contracts';
import type {
  ApiChatMessage,
  ChatMessage,
  ConversationHistory,
  ConversationImport,
  ConversationRead,
} from '@cc/contracts';
import type { AppContext } from '../app-context';
import type { UserRow } from '../db/schema';
import { checkConversationSlot } from '../chat/quota-ledger';
import { messageToRow, presentConversation, presentHistory } from '../presenters/conversation.presenter';
import { joinSettings } from '../presenters/user.presenter';
import { conversationRepository } from '../repositories/conversation.repository';
import { messageRepository } from '../repositories/message.repository';
import { currentPath } from './share.service';
import { getUser } from './user.service';

/** A file name from a title: no path separators, control or invisible characters, at most 80 characters. */
export function exportFileName(title: string | null, extension: string): string {
  // Line breaks and tabs become spaces (before the other control characters are dropped), runs of spaces one.
  const base = withoutInvisible((title ?? '').replace(/\s+/g, ' '))
    .replace(/[\\/:*?"<>|]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 80);
  return `${base || 'conversation'}.${extension}`;
}

export function historyJson(history: ConversationHistory): string {
  const { from_cache: _fromCache, ...document } = history;
  return `${JSON.stringify(document, null, 2)}\n`;
}

const ROLE_HEADINGS: Record<string, string> = {
  user: 'User',
  assistant: 'Assistant',
  system: 'System',
  tool: 'Tool',
};

/** A fence longer than any backtick run inside the text, so code that contains fences stays intact. */
function fenced(text: string, language = ''): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${text}\n${fence}`;
}

function markdownBody(message: ChatMessage): string {
  const text = messageText(message);
  if (message.source === 'openai_web') {
    const type = message.content?.content_type;
    if (type === 'code')
      return fenced(text, message.content?.content_type === 'code' ? (message.content.language ?? '') : '');
    if (type === 'execution_output' || type === 'stderr') return fenced(text);
  }
  return text;
}

/** The path shown, as Markdown: the title, then each message under its role (and model) as a heading. */
export function historyMarkdown(history: ConversationHistory): string {
  const lines = [`# ${history.title?.trim() || 'Conversation'}`, ''];
  for (const message of currentPath(history)) {
    const body = markdownBody(message).trim();
    if (!body || message.role === 'system') continue;
    const role = ROLE_HEADINGS[message.role] ?? message.role;
    const author = message.role === 'tool' && message.author_name ? ` (${message.author_name})` : '';
    const model = message.role === 'assistant' && message.model ? ` (${message.model})` : '';
    lines.push(`## ${role}${author}${model}`, '', body, '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

/**
 * Every valid conversation of the user as one zip (streamed): each as JSON (importable) and as Markdown, named by
 * title with a number so equal titles do not collide. The local copies are used (no upstream call per item).
 */
export async function exportAllZip(ctx: AppContext, userId: number): Promise<Readable> {
  const db = ctx.dbHandle.db;
  const rows = await conversationRepository(db).list({ userId, validOnly: true });
  const out = new PassThrough();
  const zip = new Zip((err, chunk, final) => {
    if (err) out.destroy(err);
    else {
      out.write(chunk);
      if (final) out.end();
    }
  });
  void (async () => {
    try {
      for (const [i, row] of rows.entries()) {
        const history = presentHistory(
          row,
          await messageRepository(db).listByConversation(row.conversation_id),
        );
        const prefix = `${String(i + 1).padStart(3, '0')} `;
        for (const [extension, text] of [
          ['json', historyJson(history)],
          ['md', historyMarkdown(history)],
        ] as const) {
          const entry = new ZipDeflate(prefix + exportFileName(row.title, extension), { level: 6 });
          zip.add(entry);
          entry.push(new TextEncoder().encode(text), true);
        }
        // A slow reader holds the rest back; a reader that left stops the work.
        if (out.writableNeedDrain) await drained(out);
        if (out.destroyed) return;
      }
      zip.end();
    } catch (e) {
      ctx.log.error({ err: e }, 'conversation export failed');
      out.destroy(e as Error);
    }
  })();
  return out;
}

/** An ISO time from imported text, or null when it is not a time. */
function isoTime(value: string | null | undefined): string | null {
  const ms = value ? Date.parse(value) : Number.NaN;
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/** Resolves when the stream wants more, or has closed. */
function drained(stream: PassThrough): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

const API_ROLES = new Set(['user', 'assistant', 'system']);
const API_MODELS = new Set(['gpt_3_5', 'gpt_4']);

/**
 * The imported messages as API messages under fresh ids: only user, assistant and system messages with text are
 * kept (tool steps and empty nodes are skipped, their children moved up to the nearest kept message).
 */
function importedMessages(doc: ConversationImport): {
  messages: ApiChatMessage[];
  currentNode: string | null;
} {
  const newId = new Map<string, string>();
  const kept = (id: string) => {
    const m = doc.mapping[id];
    return !!m && API_ROLES.has(m.role) && messageText(m).length > 0;
  };
  for (const id of Object.keys(doc.mapping)) if (kept(id)) newId.set(id, randomUUID());
  const keptAncestor = (id: string | null | undefined): string | null => {
    const seen = new Set<string>();
    while (id && !seen.has(id)) {
      seen.add(id);
      if (newId.has(id)) return newId.get(id)!;
      id = doc.mapping[id]?.parent;
    }
    return null;
  };
  const messages: ApiChatMessage[] = [];
  for (const [id, m] of Object.entries(doc.mapping)) {
    const mapped = newId.get(id);
    if (!mapped) continue;
    messages.push({
      id: mapped,
      source: 'openai_api',
      role: m.role,
      model: m.model ?? null,
      create_time: isoTime(m.create_time),
      parent: keptAncestor(m.parent),
      children: [],
      content: { content_type: 'text', text: messageText(m) },
      metadata: null,
    });
  }
  return { messages, currentNode: keptAncestor(doc.current_node) ?? messages.at(-1)?.id ?? null };
}

/**
 * Imports a JSON export as a new API conversation of the user's. It counts toward the user's `max_conv_count`
 * like a new conversation does; the conversation and all its messages are written in one transaction or not at all.
 */
export async function importConversation(
  ctx: AppContext,
  user: UserRow,
  doc: ConversationImport,
): Promise<ConversationRead> {
  const { messages, currentNode } = importedMessages(doc);
  const loaded = await getUser(ctx, user.id);
  const setting = joinSettings(loaded.setting, loaded.counters);
  const now = new Date().toISOString();
  const model = doc.current_model && API_MODELS.has(doc.current_model) ? doc.current_model : 'gpt_3_5';
  const row = await ctx.dbHandle.db.transaction().execute(async (trx) => {
    await checkConversationSlot(trx, user.id, 'openai_api', setting);
    const conversationId = randomUUID();
    const inserted = await conversationRepository(trx).insert({
      conversation_id: conversationId,
      source: 'openai_api',
      title: doc.title?.slice(0, 256) ?? null,
      user_id: user.id,
      is_valid: 1,
      is_public: 0,
      current_model: model,
      current_node: currentNode,
      server_id: null,
      plugin_ids: null,
      create_time: isoTime(doc.create_time) ?? now,
      update_time: now,
    });
    await messageRepository(trx).upsert(
      messages.map((m, i) => messageToRow(conversationId, { ...m, create_time: m.create_time ?? now }, i)),
    );
    return inserted;
  });
  return presentConversation(row);
}
