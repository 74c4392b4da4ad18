import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import { Zip, ZipDeflate } from 'fflate';
import { ERROR_DETAILS, clip, messageText, oneLine, withoutInvisible } from '@cc/contracts';
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
import { fail } from '../errors/app-error';
import { messageToRow, presentConversation, presentHistory } from '../presenters/conversation.presenter';
import { joinSettings } from '../presenters/user.presenter';
import { conversationRepository } from '../repositories/conversation.repository';
import { messageRepository } from '../repositories/message.repository';
import { currentPath } from './share.service';
import { getUser } from './user.service';

/** A file name from a title: no path separators, control or invisible characters, at most 80 characters. */
export function exportFileName(title: string | null, extension: string): string {
  const base = clip(
    oneLine(title ?? '')
      .replace(/[\\/:*?"<>|]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
    80,
  );
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

/**
 * One note per image and file a (web) message carries, as the exports show them: `[image: name]` (`[image]` when
 * no attachment names it), then `[file: name]` for each attachment not shown as an image.
 */
export function fileNotes(message: ChatMessage): string[] {
  if (message.source !== 'openai_web') return [];
  const attachments = message.metadata?.attachments ?? [];
  const names = new Map(attachments.map((a) => [a.id, oneLine(a.name)]));
  const shown = new Set<string>();
  const notes: string[] = [];
  if (message.content?.content_type === 'multimodal_text') {
    for (const part of message.content.parts) {
      if (typeof part === 'string') continue;
      const id = /^file-service:\/\/(.+)$/.exec(part.asset_pointer)?.[1];
      if (id) shown.add(id);
      const name = id ? names.get(id) : undefined;
      notes.push(name ? `[image: ${name}]` : '[image]');
    }
  }
  for (const a of attachments) if (!shown.has(a.id)) notes.push(`[file: ${oneLine(a.name) || a.id}]`);
  return notes;
}

function markdownBody(message: ChatMessage): string {
  const text = messageText(message);
  if (message.source === 'openai_web') {
    const type = message.content?.content_type;
    if (type === 'code')
      return fenced(text, message.content?.content_type === 'code' ? (message.content.language ?? '') : '');
    if (type === 'execution_output' || type === 'stderr') return fenced(text);
  }
  // Images and files first, as the conversation shows them above the text.
  return [fileNotes(message).join('\n'), text.trim()].filter(Boolean).join('\n\n');
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
/** The longest model name an imported message keeps. */
const MODEL_NAME_MAX = 64;

/**
 * The text an imported message keeps: its own text, or for a message with only images or files, a note of each
 * (so an image-only question keeps its turn). Empty when there is nothing to keep.
 */
function importedText(m: ChatMessage): string {
  const text = messageText(m);
  // Only invisible characters is no text, as in a question (AskRequest).
  return withoutInvisible(text).trim() ? text : fileNotes(m).join('\n');
}

/** True when following parents from some message comes back to it (the file is not a tree). */
function hasParentCycle(parents: Map<string, string | null>): boolean {
  const done = new Set<string>();
  for (const start of parents.keys()) {
    const walked = new Set<string>();
    for (
      let id: string | null | undefined = start;
      id && parents.has(id) && !done.has(id);
      id = parents.get(id)
    ) {
      if (walked.has(id)) return true;
      walked.add(id);
    }
    for (const id of walked) done.add(id);
  }
  return false;
}

/**
 * The imported messages as API messages under fresh ids: only user, assistant and system messages with text (or
 * images and files, noted as text) are kept; tool steps and empty nodes are skipped, their children moved up to the
 * nearest kept message. A parent that is not in the file makes a root. Refuses (422) a file whose parents loop and
 * one with nothing to keep.
 */
function importedMessages(doc: ConversationImport): {
  messages: ApiChatMessage[];
  currentNode: string | null;
} {
  // Own entries only: ids are the file's keys, whatever they are named.
  const entries = Object.entries(doc.mapping);
  const parents = new Map(entries.map(([id, m]) => [id, m.parent ?? null]));
  if (hasParentCycle(parents)) throw fail.invalidParams(ERROR_DETAILS.importCycle);
  const texts = new Map<string, string>();
  for (const [id, m] of entries) {
    const text = API_ROLES.has(m.role) ? importedText(m) : '';
    if (text) texts.set(id, text);
  }
  if (texts.size === 0) throw fail.invalidParams(ERROR_DETAILS.importEmpty);
  const newId = new Map([...texts.keys()].map((id) => [id, randomUUID()]));
  // The file is a forest (checked above), so each walk ends; results are remembered for long runs of skipped steps.
  const ancestorOf = new Map<string, string | null>();
  const keptAncestor = (start: string | null | undefined): string | null => {
    const walked: string[] = [];
    let found: string | null = null;
    for (let id = start; id && parents.has(id); id = parents.get(id)) {
      if (newId.has(id)) {
        found = newId.get(id)!;
        break;
      }
      if (ancestorOf.has(id)) {
        found = ancestorOf.get(id)!;
        break;
      }
      walked.push(id);
    }
    for (const id of walked) ancestorOf.set(id, found);
    return found;
  };
  const messages: ApiChatMessage[] = [];
  for (const [id, m] of entries) {
    const mapped = newId.get(id);
    if (!mapped) continue;
    messages.push({
      id: mapped,
      source: 'openai_api',
      role: m.role,
      // A name, shown in headings of exports: on one line and short (a file's "m\n## Injected" is not a heading).
      model: m.model ? clip(oneLine(m.model), MODEL_NAME_MAX) || null : null,
      create_time: isoTime(m.create_time),
      parent: keptAncestor(m.parent),
      children: [],
      content: { content_type: 'text', text: texts.get(id)! },
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
  // An API conversation like any other: only for a user who may use the source, with a model they may use.
  if (!setting.openai_api.allow_to_use) throw fail.userNotAllowToUseChatType('openai_api');
  const allowed = (setting.openai_api.available_models as string[]).filter((m) => API_MODELS.has(m));
  const model =
    doc.current_model && allowed.includes(doc.current_model) ? doc.current_model : (allowed[0] ?? 'gpt_3_5');
  const now = new Date().toISOString();
  const row = await ctx.dbHandle.db.transaction().execute(async (trx) => {
    await checkConversationSlot(trx, user.id, 'openai_api', setting);
    const conversationId = randomUUID();
    const inserted = await conversationRepository(trx).insert({
      conversation_id: conversationId,
      source: 'openai_api',
      title: doc.title === undefined || doc.title === null ? null : clip(doc.title, 256),
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
