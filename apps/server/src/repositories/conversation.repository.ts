import { sql } from 'kysely';
import { cleanTitle } from '@cc/contracts';
import type { Insertable, Updateable } from 'kysely';
import type { ConversationRow, ConversationsTable } from '../db/schema';
import { preparedRow } from '../db/prepared';
import type { NoParams } from '../db/prepared';
import type { Executor } from './executor';
import { conversationsWithText, titleContains } from './search.repository';

export interface ConversationFilter {
  userId?: number;
  source?: string;
  validOnly?: boolean;
  /** Only valid (true) or only invalid (false). */
  isValid?: boolean;
  /** The owner's username. */
  username?: string;
  /** Only rows without an owner. */
  unassigned?: boolean;
  /**
   * Case-insensitive part of the title or of a user or assistant message's text (searched by the database's
   * full-text index), or the start of the conversation id.
   */
  matching?: string;
}

export interface Page {
  offset?: number;
  limit?: number;
}

// Every ask runs these (db/prepared.ts).
const insertRow = preparedRow((db, _: NoParams, row: Insertable<ConversationsTable>) =>
  db.insertInto('conversations').values(row).returningAll(),
);
const updateRow = preparedRow((db, v: { conversationId: string }, patch: Updateable<ConversationsTable>) =>
  db.updateTable('conversations').set(patch).where('conversation_id', '=', v.conversationId).returningAll(),
);

/** A title written from anywhere (a rename, the upstream, a generated one, an import) is kept clean (`cleanTitle`). */
function withCleanTitle<T extends { title?: string | null }>(row: T): T {
  return row.title === undefined ? row : { ...row, title: cleanTitle(row.title) };
}

/** The `conversations` table. */
export function conversationRepository(db: Executor) {
  function filtered(filter: ConversationFilter) {
    let q = db.selectFrom('conversations');
    if (filter.userId !== undefined) q = q.where('user_id', '=', filter.userId);
    if (filter.source) q = q.where('source', '=', filter.source);
    if (filter.validOnly) q = q.where('is_valid', '=', 1);
    if (filter.isValid !== undefined) q = q.where('is_valid', '=', filter.isValid ? 1 : 0);
    if (filter.unassigned) q = q.where('user_id', 'is', null);
    if (filter.username !== undefined) {
      const username = filter.username;
      q = q.where('user_id', 'in', (eb) =>
        eb.selectFrom('users').select('users.id').where('users.username', '=', username),
      );
    }
    if (filter.matching) {
      const text = filter.matching;
      const idPrefix = `${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      q = q.where((eb) =>
        eb.or([
          titleContains(db, text)(eb),
          eb('conversation_id', 'like', sql<string>`${idPrefix} escape '\\'`),
          eb('conversation_id', 'in', conversationsWithText(db, text)),
        ]),
      );
    }
    return q;
  }
  return {
    findByUuid(conversationId: string): Promise<ConversationRow | undefined> {
      return db
        .selectFrom('conversations')
        .selectAll()
        .where('conversation_id', '=', conversationId)
        .executeTakeFirst();
    },
    list(filter: ConversationFilter = {}, page: Page = {}): Promise<ConversationRow[]> {
      let q = filtered(filter).selectAll().orderBy('update_time', 'desc').orderBy('id', 'desc');
      if (page.limit !== undefined) q = q.limit(page.limit).offset(page.offset ?? 0);
      else if (page.offset) q = q.limit(Number.MAX_SAFE_INTEGER).offset(page.offset);
      return q.execute();
    },
    /** One page for the admin list, sorted (ties by id). */
    adminPage(
      filter: ConversationFilter,
      page: { sort: 'update_time' | 'create_time' | 'title'; desc: boolean; offset: number; limit: number },
    ): Promise<ConversationRow[]> {
      const dir = page.desc ? 'desc' : 'asc';
      const sort =
        page.sort === 'title'
          ? sql`lower(coalesce(conversations.title, ''))`
          : sql.ref(`conversations.${page.sort}`);
      return filtered(filter)
        .selectAll('conversations')
        .orderBy(sort, dir)
        .orderBy('conversations.id', dir)
        .limit(page.limit)
        .offset(page.offset)
        .execute();
    },
    /**
     * One page of an owner's valid conversations: pinned first, then by last update, newest first, ties by id. The
     * page starts after `after` (the previous page's last row), keyset-style, so later pages cost the same as the
     * first and a conversation updated meanwhile is not skipped by shifting offsets.
     */
    listOwnPage(
      userId: number,
      limit: number,
      after?: Pick<ConversationRow, 'pinned_at' | 'update_time' | 'id'>,
    ): Promise<ConversationRow[]> {
      const pinned = sql<number>`case when pinned_at is null then 0 else 1 end`;
      let q = db
        .selectFrom('conversations')
        .selectAll()
        .where('user_id', '=', userId)
        .where('is_valid', '=', 1);
      if (after) {
        const afterPinned = after.pinned_at === null ? 0 : 1;
        q = q.where((eb) =>
          eb.or([
            eb(pinned, '<', afterPinned),
            eb.and([
              eb(pinned, '=', afterPinned),
              eb.or([
                eb('update_time', '<', after.update_time),
                eb.and([eb('update_time', '=', after.update_time), eb('id', '<', after.id)]),
              ]),
            ]),
          ]),
        );
      }
      return q
        .orderBy(pinned, 'desc')
        .orderBy('update_time', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
    },
    /**
     * Pins an owner's conversation unless they already have `max` pinned (an already pinned one stays as it is).
     * Undefined when the cap stopped it. The count and the update are one statement.
     */
    pinIfUnderLimit(
      conversationId: string,
      userId: number,
      max: number,
      now: string,
    ): Promise<ConversationRow | undefined> {
      return db
        .updateTable('conversations')
        .set((eb) => ({ pinned_at: eb.fn.coalesce('pinned_at', eb.val(now)) }))
        .where('conversation_id', '=', conversationId)
        .where((eb) =>
          eb.or([
            eb('pinned_at', 'is not', null),
            eb(
              eb
                .selectFrom('conversations as pinned')
                .select((e) => e.fn.countAll<number>().as('n'))
                .where('pinned.user_id', '=', userId)
                .where('pinned.is_valid', '=', 1)
                .where('pinned.pinned_at', 'is not', null),
              '<',
              max,
            ),
          ]),
        )
        .returningAll()
        .executeTakeFirst();
    },
    async countMatching(filter: ConversationFilter = {}): Promise<number> {
      const r = await filtered(filter)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    /** Every row of a source with the columns a sync compares. */
    listForSync(source: string) {
      return db
        .selectFrom('conversations')
        .select(['conversation_id', 'title', 'create_time', 'is_valid'])
        .where('source', '=', source)
        .execute();
    },
    async countValid(userId: number, source: string): Promise<number> {
      const r = await db
        .selectFrom('conversations')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .where('source', '=', source)
        .where('is_valid', '=', 1)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    async counts(source?: string): Promise<{ total: number; valid: number }> {
      let q = db
        .selectFrom('conversations')
        .select((eb) => [eb.fn.countAll<number>().as('total'), eb.fn.sum<number>('is_valid').as('valid')]);
      if (source) q = q.where('source', '=', source);
      const r = await q.executeTakeFirstOrThrow();
      return { total: Number(r.total), valid: Number(r.valid ?? 0) };
    },
    async insert(row: Insertable<ConversationsTable>): Promise<ConversationRow> {
      const stored = await insertRow.first(db, {}, withCleanTitle(row));
      if (!stored) throw new Error('inserting a conversation returned no row');
      return stored;
    },
    async update(
      conversationId: string,
      patch: Updateable<ConversationsTable>,
    ): Promise<ConversationRow | undefined> {
      return updateRow.first(db, { conversationId }, withCleanTitle(patch));
    },
    async delete(conversationId: string): Promise<void> {
      await db.deleteFrom('messages').where('conversation_id', '=', conversationId).execute();
      await db.deleteFrom('conversations').where('conversation_id', '=', conversationId).execute();
    },
  };
}
