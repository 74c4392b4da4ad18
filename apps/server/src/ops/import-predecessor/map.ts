import { API_MODELS, Avatar, ChatMessage, NewUserDefaults, WEB_MODELS } from '@cc/contracts';
import type { ChatSource, DailyTimeSlot, NewUserDefaults as Settings } from '@cc/contracts';
import type { ConversationsTable, NewUserRow } from '../../db/schema';
import type { NewMessageRow } from '../../repositories/message.repository';
import { messageToRow } from '../../presenters/conversation.presenter';
import { PASSWORD_RESET_REQUIRED, isVerifiableHash } from '../../services/password';
import type { PredecessorConversation, PredecessorSetting, PredecessorUser } from './read-sql';

/** A record that cannot be imported: the message says why (shown in the summary). */
export class RecordError extends Error {}

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** 0/1, booleans and "true"/"false" as SQLAlchemy and Mongo write them. */
export function toBool(v: unknown, fallback = false): boolean {
  if (v === null || v === undefined) return fallback;
  if (typeof v === 'string') return v === '1' || v.toLowerCase() === 'true';
  return Boolean(v);
}

/**
 * A predecessor time → ISO UTC. Its SQL datetimes are naive UTC text ("2024-01-02 03:04:05.123456"), documents
 * carry ISO text (with or without an offset) or epoch seconds (the web upstream's `create_time`).
 */
export function toIso(v: unknown): string | null {
  if (v === null || v === undefined || v === '') return null;
  let d: Date;
  if (typeof v === 'number') d = new Date(v < 1e11 ? v * 1000 : v);
  else if (v instanceof Date) d = v;
  else if (typeof v === 'string') {
    const s = v.trim().replace(' ', 'T');
    const hasZone = /([zZ]|[+-]\d{2}:?\d{2})$/.test(s);
    // Python writes up to 6 fractional digits; JavaScript reads 3.
    d = new Date((hasZone ? s : `${s}Z`).replace(/(\.\d{3})\d+/, '$1'));
  } else return null;
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** A uuid as the predecessor stored it (32 hex digits in SQLite, dashed in documents) → dashed lower case. */
export function toUuid(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const hex = v.replace(/-/g, '').toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) return v.trim() || null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export interface MappedUser {
  row: Omit<NewUserRow, 'update_time'>;
  /** The old hash is in a format we cannot check: the account must get a new password. */
  passwordReset: boolean;
}

/** A predecessor user → our row. The hash is kept when we verify its format (bcrypt), else the account is marked. */
export function mapUser(u: PredecessorUser, now: string): MappedUser {
  const username = String(u.username ?? '').trim();
  if (!username || username.length > 32 || /\s/.test(username))
    throw new RecordError(`username "${username}" is empty, longer than 32 characters or has spaces`);
  const hash = u.hashed_password ?? '';
  const passwordReset = !isVerifiableHash(hash);
  const avatar = Avatar.safeParse(u.avatar ?? null);
  return {
    passwordReset,
    row: {
      username,
      nickname: (u.nickname ?? '').trim().slice(0, 64) || username,
      email: (u.email ?? '').trim().slice(0, 254),
      hashed_password: passwordReset ? PASSWORD_RESET_REQUIRED : hash,
      avatar: avatar.success ? avatar.data : null,
      remark: u.remark ? u.remark.slice(0, 256) : null,
      is_active: toBool(u.is_active, true) ? 1 : 0,
      is_superuser: toBool(u.is_superuser) ? 1 : 0,
      is_verified: toBool(u.is_verified) ? 1 : 0,
      last_active_time: toIso(u.last_active_time),
      create_time: toIso(u.create_time) ?? now,
    },
  };
}

const FULL_DAY = { start_time: '00:00:00', end_time: '23:59:59' };

function shiftTime(hms: string, minutes: number): string {
  const [h = 0, m = 0, s = 0] = hms.split(':').map(Number);
  const total = (((h * 3600 + m * 60 + s - minutes * 60) % 86400) + 86400) % 86400;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(Math.floor(total / 3600))}:${pad(Math.floor((total % 3600) / 60))}:${pad(total % 60)}`;
}

/**
 * The predecessor compared slots with the server's local time; ours are UTC. `utcOffsetMinutes` is that server's
 * offset (east positive). A whole-day slot means "any time" (its 23:59:59 end only lost the last second: a bug).
 */
export function mapTimeSlots(slots: unknown, utcOffsetMinutes: number): DailyTimeSlot[] {
  if (!Array.isArray(slots)) return [];
  const list = slots.filter(isRecord).map((s) => ({
    start_time: text(s.start_time).slice(0, 8),
    end_time: text(s.end_time).slice(0, 8),
  }));
  if (list.some((s) => s.start_time === FULL_DAY.start_time && s.end_time === FULL_DAY.end_time)) return [];
  return list.map((s) => ({
    start_time: shiftTime(s.start_time, utcOffsetMinutes),
    end_time: shiftTime(s.end_time, utcOffsetMinutes),
  }));
}

function parseJson(text: string | null, what: string): Json {
  if (!text) throw new RecordError(`${what} settings are missing`);
  try {
    const v = JSON.parse(text) as unknown;
    if (isRecord(v)) return v;
  } catch {
    // reported below
  }
  throw new RecordError(`${what} settings are not a JSON object`);
}

function count(v: unknown, fallback: number): number {
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isInteger(n) && n >= -1 ? n : fallback;
}

function sourceBase(s: Json, utcOffsetMinutes: number) {
  return {
    allow_to_use: toBool(s.allow_to_use, true),
    valid_until: toIso(s.valid_until),
    max_conv_count: count(s.max_conv_count, 10),
    total_ask_count: count(s.total_ask_count, -1),
    // Stored but never enforced by the predecessor: importing them would start limiting users who never were.
    rate_limits: [],
    daily_available_time_slots: mapTimeSlots(s.daily_available_time_slots, utcOffsetMinutes),
  };
}

/**
 * Per-model counts: the predecessor read a missing model as 0 asks, we read it as unlimited, so every model of
 * the source gets an explicit value (missing → 0; -1 stays unlimited).
 */
function perModel<M extends string>(models: readonly M[], raw: unknown): Partial<Record<M, number>> {
  const given = isRecord(raw) ? raw : {};
  return Object.fromEntries(models.map((m) => [m, count(given[m], 0)])) as Partial<Record<M, number>>;
}

function ourModels<M extends string>(models: readonly M[], raw: unknown): M[] {
  return Array.isArray(raw) ? models.filter((m) => raw.includes(m)) : [];
}

/** A predecessor settings row → our settings (validated with the same schema as an admin's write). */
export function mapSettings(s: PredecessorSetting | undefined, utcOffsetMinutes: number): Settings {
  if (!s) throw new RecordError('no settings row');
  const web = parseJson(s.openai_web, 'openai_web');
  const api = parseJson(s.openai_api, 'openai_api');
  const custom = isRecord(api.custom_openai_api_settings) ? api.custom_openai_api_settings : {};
  const uploads = !toBool(web.disable_uploading);
  const mapped = {
    // Credits were never checked or charged by the predecessor: unlimited keeps what users could do.
    credits: -1,
    openai_web: {
      ...sourceBase(web, utcOffsetMinutes),
      available_models: ourModels(WEB_MODELS, web.available_models),
      per_model_ask_count: perModel(WEB_MODELS, web.per_model_ask_count),
      allow_uploading_attachments: uploads,
      allow_uploading_multimodal_images: uploads,
    },
    openai_api: {
      ...sourceBase(api, utcOffsetMinutes),
      available_models: ourModels(API_MODELS, api.available_models),
      per_model_ask_count: perModel(API_MODELS, api.per_model_ask_count),
      allow_custom_openai_api: toBool(api.allow_custom_openai_api),
      custom_openai_api_settings: {
        url: typeof custom.url === 'string' && /^https?:\/\//.test(custom.url) ? custom.url : null,
        key: typeof custom.key === 'string' && custom.key ? custom.key : null,
      },
    },
  };
  const parsed = NewUserDefaults.safeParse(mapped);
  if (!parsed.success)
    throw new RecordError(
      `settings: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

const SOURCES = new Set<string>(['openai_web', 'openai_api']);

export interface MappedConversation {
  row: Omit<ConversationsTable, 'id'>;
  messages: NewMessageRow[];
}

/** A message of a history document → a chat message; an unreadable content is kept raw in the metadata. */
function mapMessage(source: ChatSource, id: string, raw: Json, parent: string | null, fallbackTime: string) {
  const base = {
    id,
    source,
    role: typeof raw.role === 'string' ? raw.role : 'assistant',
    author_name: typeof raw.author_name === 'string' ? raw.author_name : null,
    model: typeof raw.model === 'string' ? raw.model : null,
    create_time: toIso(raw.create_time) ?? fallbackTime,
    parent,
    children: [],
  };
  const full = ChatMessage.safeParse({
    ...base,
    content: raw.content ?? null,
    metadata: raw.metadata ?? null,
  });
  if (full.success) return full.data;
  const metadata = { ...(isRecord(raw.metadata) ? raw.metadata : {}), fallback_content: raw.content ?? null };
  const kept = ChatMessage.safeParse({
    ...base,
    content: null,
    metadata: source === 'openai_web' ? metadata : null,
  });
  if (kept.success) return kept.data;
  throw new RecordError(`message ${id}: ${kept.error.issues[0]?.message ?? 'unreadable'}`);
}

/**
 * The conversation's messages: the tree is rebuilt from `parent` links only (the predecessor's API histories put
 * the reply's id in the parent's `children`, a bug we do not carry over). A parent that is not in the document
 * makes a root.
 */
function mapMessages(source: ChatSource, conversationId: string, doc: Json, fallbackTime: string) {
  const mapping = isRecord(doc.mapping) ? doc.mapping : {};
  const ids = new Set(Object.keys(mapping));
  const messages = Object.entries(mapping).map(([key, raw]) => {
    if (!isRecord(raw)) throw new RecordError(`message ${key} is not an object`);
    const id = typeof raw.id === 'string' ? raw.id : key;
    const parent = typeof raw.parent === 'string' && ids.has(raw.parent) ? raw.parent : null;
    return mapMessage(source, id, raw, parent, fallbackTime);
  });
  messages.sort((a, b) => (a.create_time ?? '').localeCompare(b.create_time ?? ''));
  return messages.map((m, i) => messageToRow(conversationId, m, i));
}

/** The current node: the document's when it is one of its messages, else the newest leaf. */
function currentNode(doc: Json | undefined, messages: NewMessageRow[]): string | null {
  if (messages.length === 0) return null;
  const given = typeof doc?.current_node === 'string' ? doc.current_node : null;
  if (given && messages.some((m) => m.id === given)) return given;
  const parents = new Set(messages.map((m) => m.parent));
  const leaves = messages.filter((m) => !parents.has(m.id));
  return (leaves.at(-1) ?? messages.at(-1))?.id ?? null;
}

/**
 * A conversation row (+ its history document when there is one) → our row and messages. `userId` is our owner id
 * (null: unassigned, as the predecessor's sync left it, or its owner was deleted there).
 */
export function mapConversation(
  c: PredecessorConversation,
  doc: Json | undefined,
  userId: number | null,
  now: string,
): MappedConversation {
  const conversationId = toUuid(c.conversation_id);
  if (!conversationId) throw new RecordError('no conversation id');
  if (!SOURCES.has(c.source)) throw new RecordError(`unknown source "${c.source}"`);
  const source = c.source as ChatSource;
  const createTime = toIso(c.create_time) ?? toIso(doc?.create_time) ?? now;
  const messages = doc ? mapMessages(source, conversationId, doc, createTime) : [];
  const metadata = isRecord(doc?.metadata) ? doc.metadata : {};
  const pluginIds = Array.isArray(metadata.plugin_ids)
    ? metadata.plugin_ids.filter((p) => typeof p === 'string')
    : [];
  const docModel = typeof doc?.current_model === 'string' ? doc.current_model : null;
  return {
    messages,
    row: {
      conversation_id: conversationId,
      source,
      title: c.title ?? (typeof doc?.title === 'string' ? doc.title : null),
      user_id: userId,
      is_valid: toBool(c.is_valid, true) ? 1 : 0,
      is_public: 0,
      current_model: c.current_model ?? docModel,
      current_node: currentNode(doc, messages),
      server_id: null,
      plugin_ids: pluginIds.length ? JSON.stringify(pluginIds) : null,
      create_time: createTime,
      update_time: toIso(c.update_time) ?? toIso(doc?.update_time) ?? createTime,
      pinned_at: null,
    },
  };
}

export interface MappedAskLog {
  time: string;
  source: string;
  model: string;
  /** The predecessor's user id (resolved to ours by the writer). */
  predecessorUserId: number | null;
  conversation_id: string | null;
  queueing_time: number;
  ask_time: number;
}

/** An `ask_logs` document (time-series: `{time, meta{source, model}, user_id, …}`). */
export function mapAskLog(doc: Json): MappedAskLog {
  const meta = isRecord(doc.meta) ? doc.meta : doc;
  const time = toIso(doc.time);
  if (!time) throw new RecordError('no time');
  const source = text(meta.source);
  if (!SOURCES.has(source)) throw new RecordError(`unknown source "${source}"`);
  const model = typeof meta.model === 'string' ? meta.model : null;
  if (!model) throw new RecordError('no model');
  const userId = Number(doc.user_id);
  return {
    time,
    source,
    model,
    predecessorUserId: Number.isInteger(userId) ? userId : null,
    conversation_id: toUuid(doc.conversation_id),
    queueing_time: Number(doc.queueing_time) || 0,
    ask_time: Number(doc.ask_time) || 0,
  };
}
