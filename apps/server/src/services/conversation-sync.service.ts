import { clip } from '@cc/contracts';
import type { SyncStop, SyncSummary } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { conversationRepository } from '../repositories/conversation.repository';
import { nowIso } from '../repositories/executor';
import { webClient } from '../sources/openai-web/client';

/** Page size of the upstream list (what the web client itself asks for). */
const PAGE = 80;
/** A safety stop: 80 × 2500 = 200 000 conversations. */
const MAX_PAGES = 2500;

/**
 * The guard against mass invalidation: a sync that would invalidate more than this share of the valid
 * `openai_web` conversations stops and changes nothing. Losing most of an account at once is far more likely
 * to be an upstream that forgot or switched accounts than users deleting their history; an admin who sees the
 * report and knows better invalidates them by hand.
 */
const MAX_INVALIDATED_SHARE = 0.5;
/**
 * ...but only from this many: below it the sync goes ahead whatever the share, so where someone deleted one or
 * two of few valid conversations (2 of 3) the sync still applies. An empty listing stops anyway (stopReason).
 */
const MIN_GUARDED_INVALIDATIONS = 3;

interface UpstreamItem {
  title: string | null;
  createTime: string | null;
  updateTime: string | null;
}

/** Upstream times come as ISO text or epoch seconds; stored times are ISO UTC. */
function isoOf(value: string | number | null | undefined): string | null {
  if (value === null || value === undefined || value === '') return null;
  const ms = typeof value === 'number' ? value * 1000 : Date.parse(value);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/** Every conversation of the web account, by id. Throws on any upstream failure (never a partial list). */
async function listUpstream(
  ctx: AppContext,
): Promise<{ items: Map<string, UpstreamItem>; serverId: number | null }> {
  const target = ctx.upstream.webTarget();
  const client = webClient(target);
  const items = new Map<string, UpstreamItem>();
  let offset = 0;
  for (let page = 0; page < MAX_PAGES; page++) {
    const r = await client.listConversations(offset, PAGE);
    const got = r?.items ?? [];
    for (const item of got) {
      items.set(item.id, {
        title: item.title ? clip(item.title, 256) : null,
        createTime: isoOf(item.create_time),
        updateTime: isoOf(item.update_time),
      });
    }
    offset += got.length;
    // Advance by what came back (an upstream may cap the page size below what was asked).
    if (got.length === 0 || (typeof r.total === 'number' ? offset >= r.total : got.length < PAGE)) break;
  }
  return { items, serverId: target.serverId };
}

/** Why the sync must not apply what it found, or null when it may. */
function stopReason(s: SyncSummary): SyncStop | null {
  // An empty listing says nothing about our conversations: the upstream may have lost its state (the demo
  // upstream restarted in memory), or the account may have been switched.
  if (s.fetched === 0 && s.valid > 0) return 'upstream_empty';
  if (s.missing >= MIN_GUARDED_INVALIDATIONS && s.missing > s.valid * MAX_INVALIDATED_SHARE) {
    return 'too_many_missing';
  }
  return null;
}

function stopMessage(s: SyncSummary): string {
  return s.stopped === 'upstream_empty'
    ? `openai_web sync stopped, nothing changed: the upstream listed no conversations while ${s.valid} are valid here`
    : `openai_web sync stopped, nothing changed: ${s.missing} of ${s.valid} valid conversations are missing upstream`;
}

/**
 * Brings the local `openai_web` rows in line with the account: known rows take the upstream title and create
 * time and become valid again, rows missing upstream become invalid, unknown conversations are inserted without
 * an owner (an admin assigns them). The upstream list is read completely before anything changes. Nothing
 * changes at all (`stopped` says why, and a warning is logged) when the listing is empty while conversations are
 * valid here, or when more than half of the valid ones (and at least 3) would be invalidated at once.
 */
export async function syncOpenaiWebConversations(ctx: AppContext): Promise<SyncSummary> {
  // A conversation begun here while the listing was read may be missing from it: it is not invalidated.
  const started = nowIso();
  const { items, serverId } = await listUpstream(ctx);
  const summary: SyncSummary = {
    fetched: items.size,
    updated: 0,
    invalidated: 0,
    inserted: 0,
    valid: 0,
    missing: 0,
    stopped: null,
  };
  await ctx.dbHandle.db.transaction().execute(async (trx) => {
    const repo = conversationRepository(trx);
    const rows = await repo.listForSync('openai_web');
    const missing = (row: (typeof rows)[number]) =>
      !items.has(row.conversation_id) && row.create_time < started;
    for (const row of rows) {
      if (!row.is_valid) continue;
      summary.valid += 1;
      if (missing(row)) summary.missing += 1;
    }
    summary.stopped = stopReason(summary);
    if (summary.stopped) return;

    const now = nowIso();
    const known = new Set<string>();
    for (const row of rows) {
      known.add(row.conversation_id);
      const upstream = items.get(row.conversation_id);
      if (!upstream) {
        if (row.is_valid && missing(row)) {
          await repo.update(row.conversation_id, { is_valid: 0, update_time: now });
          summary.invalidated += 1;
        }
        continue;
      }
      const patch: { title?: string; create_time?: string; is_valid?: number } = {};
      if (upstream.title && upstream.title !== row.title) patch.title = upstream.title;
      if (upstream.createTime && upstream.createTime !== row.create_time)
        patch.create_time = upstream.createTime;
      if (!row.is_valid) patch.is_valid = 1;
      if (Object.keys(patch).length > 0) {
        await repo.update(row.conversation_id, { ...patch, update_time: now });
        summary.updated += 1;
      }
    }
    for (const [id, upstream] of items) {
      if (known.has(id)) continue;
      await repo.insert({
        conversation_id: id,
        source: 'openai_web',
        title: upstream.title,
        user_id: null,
        is_valid: 1,
        is_public: 0,
        current_model: null,
        current_node: null,
        server_id: serverId,
        plugin_ids: null,
        create_time: upstream.createTime ?? now,
        update_time: upstream.updateTime ?? now,
      });
      summary.inserted += 1;
    }
  });
  if (summary.stopped) {
    ctx.log.warn(
      { valid: summary.valid, missing: summary.missing, fetched: summary.fetched },
      stopMessage(summary),
    );
  }
  return summary;
}
