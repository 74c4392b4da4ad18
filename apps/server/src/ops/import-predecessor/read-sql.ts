import SQLite from 'better-sqlite3';

/**
 * The predecessor's SQL rows as read (SQLAlchemy on SQLite, reference §0): booleans as 0/1, datetimes as naive UTC
 * text, uuids as 32 hex digits or dashed, the per-source settings as JSON text.
 */
export interface PredecessorUser {
  id: number;
  username: string;
  nickname: string | null;
  email: string | null;
  hashed_password: string | null;
  avatar: string | null;
  remark: string | null;
  is_active: unknown;
  is_superuser: unknown;
  is_verified: unknown;
  last_active_time: unknown;
  create_time: unknown;
  valid_until: unknown;
}

export interface PredecessorSetting {
  user_id: number;
  credits: number | null;
  openai_web_chat_status: string | null;
  openai_web: string | null;
  openai_api: string | null;
}

export interface PredecessorConversation {
  id: number;
  source: string;
  conversation_id: string;
  title: string | null;
  user_id: number | null;
  is_valid: unknown;
  current_model: string | null;
  create_time: unknown;
  update_time: unknown;
}

export interface PredecessorSql {
  users: PredecessorUser[];
  settings: PredecessorSetting[];
  conversations: PredecessorConversation[];
}

/** Reads the predecessor's SQLite file (read-only: the file is never changed). */
export function readPredecessorSql(file: string): PredecessorSql {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    const columns = (table: string) =>
      new Set((db.pragma(`table_info("${table}")`) as { name: string }[]).map((c) => c.name));
    const need = (table: string, names: string[]) => {
      const have = columns(table);
      const missing = names.filter((n) => !have.has(n));
      if (have.size === 0)
        throw new Error(`${file}: no table "${table}" (is this the predecessor's database?)`);
      if (missing.length) throw new Error(`${file}: table "${table}" lacks ${missing.join(', ')}`);
      return have;
    };
    const userColumns = need('user', ['id', 'username', 'hashed_password']);
    need('user_setting', ['user_id', 'openai_web', 'openai_api']);
    need('conversation', ['id', 'source', 'conversation_id', 'user_id']);
    const optional = (have: Set<string>, name: string) =>
      have.has(name) ? `"${name}"` : `NULL AS "${name}"`;
    const userSelect = [
      'id',
      'username',
      'nickname',
      'email',
      'hashed_password',
      'avatar',
      'remark',
      'is_active',
      'is_superuser',
      'is_verified',
      'last_active_time',
      'create_time',
      'valid_until',
    ].map((c) => optional(userColumns, c));
    const settingColumns = columns('user_setting');
    const conversationColumns = columns('conversation');
    return {
      users: db.prepare(`SELECT ${userSelect.join(', ')} FROM "user" ORDER BY id`).all() as PredecessorUser[],
      settings: db
        .prepare(
          `SELECT user_id, ${optional(settingColumns, 'credits')}, ${optional(settingColumns, 'openai_web_chat_status')},
             openai_web, openai_api FROM user_setting ORDER BY id`,
        )
        .all() as PredecessorSetting[],
      conversations: db
        .prepare(
          `SELECT id, source, conversation_id, user_id, ${[
            'title',
            'is_valid',
            'current_model',
            'create_time',
            'update_time',
          ]
            .map((c) => optional(conversationColumns, c))
            .join(', ')} FROM conversation ORDER BY id`,
        )
        .all() as PredecessorConversation[],
    };
  } finally {
    db.close();
  }
}
