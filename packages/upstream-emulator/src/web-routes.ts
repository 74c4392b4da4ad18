/** ChatGPT web `backend-api` routes other than the ask and the files. */
import type { RequestContext, Route } from './context';
import { param } from './context';
import { gradientPng } from './png';
import type { Conversation, WebMessage } from './state';
import { titleFromPrompt } from './text';
import { deterministicUuid, isoTime, isRecord, newFileId, seedOf, sendJson } from './util';

export function webError(ctx: RequestContext, status: number, detail: unknown): void {
  sendJson(ctx.res, status, { detail });
}

/** A visible conversation, or a 404 sent and undefined. */
export function findConversation(ctx: RequestContext, id: string): Conversation | undefined {
  const conv = ctx.core.state.conversations.get(id);
  if (conv?.isVisible) return conv;
  webError(ctx, 404, `Can't load conversation ${id}`);
  return undefined;
}

function intQuery(ctx: RequestContext, name: string, fallback: number, min: number, max: number): number {
  const raw = ctx.url.searchParams.get(name);
  const n = raw === null || raw === '' ? fallback : Number.parseInt(raw, 10);
  if (!Number.isFinite(n)) return fallback;
  return Math.min(max, Math.max(min, n));
}

/** Text of a message's content parts (strings only). */
export function messageText(message: WebMessage | null | undefined): string {
  const parts = message?.content['parts'];
  if (Array.isArray(parts)) return parts.filter((p): p is string => typeof p === 'string').join('\n');
  const text = message?.content['text'];
  return typeof text === 'string' ? text : '';
}

function presentConversation(conv: Conversation): Record<string, unknown> {
  return {
    title: conv.title,
    create_time: conv.createTime,
    update_time: conv.updateTime,
    mapping: conv.mapping,
    moderation_results: [],
    current_node: conv.currentNode,
    plugin_ids: conv.pluginIds,
    conversation_id: conv.id,
    conversation_template_id: null,
    gizmo_id: null,
    is_archived: false,
    safe_urls: [],
    default_model_slug: conv.model,
  };
}

function listConversations(ctx: RequestContext): void {
  const offset = intQuery(ctx, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
  const limit = intQuery(ctx, 'limit', 28, 1, 100);
  const all = ctx.core.state.visibleConversations();
  const items = all.slice(offset, offset + limit).map((c) => ({
    id: c.id,
    title: c.title,
    create_time: isoTime(c.createTime * 1000),
    update_time: isoTime(c.updateTime * 1000),
    mapping: null,
    current_node: null,
    conversation_template_id: null,
    gizmo_id: null,
    is_archived: false,
    workspace_id: null,
  }));
  sendJson(ctx.res, 200, { items, total: all.length, limit, offset, has_missing_conversations: false });
}

function getConversation(ctx: RequestContext): void {
  const conv = findConversation(ctx, param(ctx, 0));
  if (conv) sendJson(ctx.res, 200, presentConversation(conv));
}

function patchConversation(ctx: RequestContext): void {
  const conv = ctx.core.state.conversations.get(param(ctx, 0));
  if (!conv) return webError(ctx, 404, `Can't load conversation ${param(ctx, 0)}`);
  const body = ctx.body;
  if (!isRecord(body)) return webError(ctx, 422, 'Body must be a JSON object');
  if ('is_visible' in body && typeof body['is_visible'] !== 'boolean') {
    return webError(ctx, 422, 'is_visible must be a boolean');
  }
  if ('title' in body && typeof body['title'] !== 'string')
    return webError(ctx, 422, 'title must be a string');
  const node = body['current_node'];
  if ('current_node' in body && (typeof node !== 'string' || !conv.mapping[node]))
    return webError(ctx, 422, 'current_node must be a message of the conversation');
  if (typeof node === 'string') conv.currentNode = node;
  if (typeof body['is_visible'] === 'boolean') conv.isVisible = body['is_visible'];
  if (typeof body['title'] === 'string') conv.title = body['title'];
  sendJson(ctx.res, 200, { success: true });
}

function patchAllConversations(ctx: RequestContext): void {
  const body = ctx.body;
  if (!isRecord(body) || typeof body['is_visible'] !== 'boolean') {
    return webError(ctx, 422, 'Body must be {"is_visible": boolean}');
  }
  const visible = body['is_visible'];
  for (const conv of ctx.core.state.conversations.values()) conv.isVisible = visible;
  sendJson(ctx.res, 200, { success: true });
}

/** The user text the conversation started with, seen from `messageId` up to the root. */
function firstUserText(conv: Conversation, messageId: string): string {
  let text = '';
  let node = conv.mapping[messageId];
  while (node) {
    if (node.message?.author.role === 'user') text = messageText(node.message);
    node = node.parent === null ? undefined : conv.mapping[node.parent];
  }
  return text;
}

function genTitle(ctx: RequestContext): void {
  const conv = findConversation(ctx, param(ctx, 0));
  if (!conv) return;
  const body = ctx.body;
  const messageId = isRecord(body) ? body['message_id'] : undefined;
  if (typeof messageId !== 'string') return webError(ctx, 422, 'message_id is required');
  if (!conv.mapping[messageId]) return webError(ctx, 404, `Message ${messageId} not found`);
  conv.title = titleFromPrompt(firstUserText(conv, messageId));
  sendJson(ctx.res, 200, { title: conv.title });
}

const KERNEL_LIFETIME_MS = 60 * 60 * 1000;

function interpreterInfo(ctx: RequestContext): void {
  const conv = findConversation(ctx, param(ctx, 0));
  if (!conv) return;
  const started = conv.kernelStartedAt;
  sendJson(ctx.res, 200, {
    kernel_started: started !== null,
    time_remaining_ms: started === null ? 0 : Math.max(0, KERNEL_LIFETIME_MS - (Date.now() - started)),
  });
}

function interpreterDownload(ctx: RequestContext): void {
  const conv = findConversation(ctx, param(ctx, 0));
  if (!conv) return;
  const messageId = ctx.url.searchParams.get('message_id');
  const sandboxPath = ctx.url.searchParams.get('sandbox_path');
  if (!messageId || !sandboxPath) return webError(ctx, 422, 'message_id and sandbox_path are required');
  if (!conv.mapping[messageId]) {
    return sendJson(ctx.res, 404, {
      status: 'error',
      download_url: null,
      error_code: 'message_not_found',
      error_message: `Message ${messageId} not found`,
    });
  }
  const name = sandboxPath.split('/').pop() || 'file';
  const key = `sandbox:${conv.id}:${messageId}:${sandboxPath}`;
  const bytes = name.toLowerCase().endsWith('.png')
    ? gradientPng(seedOf(key), 640, 480)
    : Buffer.from(`Contents of ${sandboxPath} from the emulated sandbox.\n`);
  const file = ctx.core.state.addGeneratedFile(
    newFileId(key),
    name,
    name.endsWith('.png') ? 'image/png' : 'text/plain',
    bytes,
  );
  sendJson(ctx.res, 200, {
    status: 'success',
    download_url: blobUrl(ctx, file.id, file.sig),
    file_name: name,
    error_code: null,
    error_message: null,
  });
}

export function blobUrl(ctx: RequestContext, fileId: string, sig: string): string {
  return `${ctx.core.blobOrigin()}/blob/${fileId}?se=${encodeURIComponent(isoTime(Date.now() + 3_600_000))}&sp=r&sv=2020-04-08&sr=b&sig=${sig}`;
}

function listApprovedPlugins(ctx: RequestContext): void {
  const offset = intQuery(ctx, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
  const limit = intQuery(ctx, 'limit', 0, 0, 1000);
  const category = ctx.url.searchParams.get('category') ?? '';
  const search = (ctx.url.searchParams.get('search') ?? '').toLowerCase();
  const matching = ctx.core.state.plugins.all().filter((p) => {
    if (category !== '' && !p.categories.some((c) => c.id === category)) return false;
    if (search === '') return true;
    const haystack = [p.namespace, p.manifest.name_for_human, p.manifest.description_for_human].join(' ');
    return haystack.toLowerCase().includes(search);
  });
  const items = limit > 0 ? matching.slice(offset, offset + limit) : matching.slice(offset);
  sendJson(ctx.res, 200, { items, count: matching.length });
}

function listInstalledPlugins(ctx: RequestContext): void {
  const offset = intQuery(ctx, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
  const limit = intQuery(ctx, 'limit', 250, 1, 1000);
  const installedOnly = ctx.url.searchParams.get('is_installed') === 'true';
  const matching = ctx.core.state.plugins.all().filter((p) => !installedOnly || p.user_settings.is_installed);
  sendJson(ctx.res, 200, { items: matching.slice(offset, offset + limit), count: matching.length });
}

function patchPluginSettings(ctx: RequestContext): void {
  const body = ctx.body;
  if (!isRecord(body) || typeof body['is_installed'] !== 'boolean') {
    return webError(ctx, 422, 'Body must be {"is_installed": boolean}');
  }
  const plugin = ctx.core.state.plugins.setInstalled(param(ctx, 0), body['is_installed']);
  if (!plugin) return webError(ctx, 404, `Plugin ${param(ctx, 0)} not found`);
  sendJson(ctx.res, 200, plugin);
}

const PERSONAL_ACCOUNT_ID = deterministicUuid('emulator-personal-account');
const TEAM_ACCOUNT_ID = deterministicUuid('emulator-team-account');
const USER_ID = `user-${deterministicUuid('emulator-user').replace(/-/g, '').slice(0, 24)}`;

function accountsCheck(ctx: RequestContext): void {
  const expires = isoTime(Date.UTC(new Date().getUTCFullYear() + 1, 0, 1));
  const account = (
    id: string,
    structure: 'personal' | 'workspace',
    planType: string,
    plan: string,
    name: string | null,
  ): Record<string, unknown> => ({
    account: {
      account_user_role: 'account-owner',
      account_user_id: `${USER_ID}__${id}`,
      processor: { a001: { has_customer_object: true }, b001: { has_transaction_history: false } },
      account_id: id,
      organization_id: null,
      is_most_recent_expired_subscription_gratis: false,
      has_previously_paid_subscription: true,
      name,
      profile_picture_id: null,
      profile_picture_url: null,
      structure,
      plan_type: planType,
      is_deactivated: false,
      promo_data: {},
    },
    features: ['beta_features', 'browsing_available', 'code_interpreter_available', 'plugins_available'],
    entitlement: {
      subscription_id: deterministicUuid(`subscription:${id}`),
      has_active_subscription: true,
      subscription_plan: plan,
      expires_at: expires,
      billing_period: 'monthly',
    },
    last_active_subscription: {
      subscription_id: deterministicUuid(`subscription:${id}`),
      purchase_origin_platform: 'chatgpt_web',
      will_renew: true,
    },
    is_eligible_for_yearly_plus_subscription: false,
  });
  sendJson(ctx.res, 200, {
    accounts: {
      [PERSONAL_ACCOUNT_ID]: account(PERSONAL_ACCOUNT_ID, 'personal', 'plus', 'chatgptplusplan', null),
      [TEAM_ACCOUNT_ID]: account(TEAM_ACCOUNT_ID, 'workspace', 'team', 'chatgptteamplan', 'Emulated Team'),
    },
    account_ordering: [PERSONAL_ACCOUNT_ID, TEAM_ACCOUNT_ID],
  });
}

const ID = '([^/]+)';

export const webRoutes: Route[] = [
  { method: 'GET', pattern: /^\/backend-api\/conversations$/, handler: listConversations },
  { method: 'PATCH', pattern: /^\/backend-api\/conversations$/, handler: patchAllConversations },
  { method: 'POST', pattern: new RegExp(`^/backend-api/conversation/gen_title/${ID}$`), handler: genTitle },
  {
    method: 'GET',
    pattern: new RegExp(`^/backend-api/conversation/${ID}/interpreter$`),
    handler: interpreterInfo,
  },
  {
    method: 'GET',
    pattern: new RegExp(`^/backend-api/conversation/${ID}/interpreter/download$`),
    handler: interpreterDownload,
  },
  { method: 'GET', pattern: new RegExp(`^/backend-api/conversation/${ID}$`), handler: getConversation },
  { method: 'PATCH', pattern: new RegExp(`^/backend-api/conversation/${ID}$`), handler: patchConversation },
  { method: 'GET', pattern: /^\/backend-api\/aip\/p\/approved$/, handler: listApprovedPlugins },
  { method: 'GET', pattern: /^\/backend-api\/aip\/p$/, handler: listInstalledPlugins },
  {
    method: 'PATCH',
    pattern: new RegExp(`^/backend-api/aip/p/${ID}/user-settings$`),
    handler: patchPluginSettings,
  },
  { method: 'GET', pattern: /^\/backend-api\/accounts\/check\/v4-2023-04-27$/, handler: accountsCheck },
];
