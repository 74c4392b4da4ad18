import { isDeepStrictEqual } from 'node:util';
import { MASKED_SECRET, fromMicros, toMicros } from '@cc/contracts';
import type { GroupBudgets, GroupTemplate, UserSetting, UserSettingUpdate } from '@cc/contracts';
import type { AppContext } from '../app-context';
import type { UserGroupRow, UserSettingsRow } from '../db/schema';
import { joinSettings } from '../presenters/user.presenter';
import type { StoredApi, StoredWeb } from '../presenters/user.presenter';
import type { Executor } from '../repositories/executor';
import { quotaRepository } from '../repositories/quota.repository';
import { userSettingRepository } from '../repositories/user-setting.repository';
import { sealedCustomKey, splitSettings } from './user-settings';

/** A stored group's template. */
export function templateOf(row: UserGroupRow): GroupTemplate {
  return {
    openai_web: JSON.parse(row.openai_web) as GroupTemplate['openai_web'],
    openai_api: JSON.parse(row.openai_api) as GroupTemplate['openai_api'],
    budgets: row.budgets ? (JSON.parse(row.budgets) as GroupBudgets) : null,
  };
}

const BUDGET_KEYS = ['credits', 'daily_budget', 'monthly_budget'] as const;

/** The asks left: consumed as the user asks, so they follow every change the group makes to them. */
const COUNTS = new Set(['total_ask_count', 'per_model_ask_count']);

/**
 * A member's settings with the group's template applied. Joining (`previous` null): every field of the template.
 * A group change: each field the change touches, for members who still had the group's previous value there; a
 * field set differently on the user stays theirs. The asks left follow every change of the group's counts, model
 * by model (a change of one model's count leaves the others' asks left alone). The budgets follow the same rule
 * when the group sets them (what was spent stays the user's); when the group stops setting one, a member who still
 * has its value gets their own back (`own`: theirs from before joining). The own API endpoint and key stay the
 * user's.
 */
export function withTemplate(
  current: UserSetting,
  template: GroupTemplate,
  previous: GroupTemplate | null,
  own?: GroupBudgets,
): Omit<UserSettingUpdate, 'openai_web_chat_status'> {
  const next = structuredClone(current);
  const copy = <S extends 'openai_web' | 'openai_api'>(source: S) => {
    const target = next[source] as Record<string, unknown>;
    const from = template[source] as Record<string, unknown>;
    const before = previous?.[source] as Record<string, unknown> | undefined;
    for (const [key, value] of Object.entries(from)) {
      if (key === 'per_model_ask_count' && before) {
        target[key] = perModelCounts(target[key], before[key], value);
        continue;
      }
      const follows =
        !before ||
        (!isDeepStrictEqual(before[key], value) &&
          (COUNTS.has(key) || isDeepStrictEqual(target[key], before[key])));
      if (follows) target[key] = structuredClone(value);
    }
  };
  copy('openai_web');
  copy('openai_api');
  // Budgets as the other fields; a group that starts setting them sets them for every member.
  const before = previous?.budgets;
  for (const key of BUDGET_KEYS) {
    const value = template.budgets?.[key];
    if (value === undefined) {
      // The group no longer sets it: a member who still has the group's value gets their own back.
      if (before && own && next[key] === before[key]) next[key] = own[key];
      continue;
    }
    if (!previous || !before || (before[key] !== value && next[key] === before[key])) next[key] = value;
  }
  return {
    credits: next.credits,
    daily_budget: next.daily_budget,
    monthly_budget: next.monthly_budget,
    openai_web: next.openai_web,
    openai_api: next.openai_api,
  };
}

type Counts = Partial<Record<string, number>>;

/**
 * A member's asks left per model after a group change: each model whose count the group changed takes the new
 * count (or goes when the group drops it); every other model keeps what the member has left.
 */
function perModelCounts(current: unknown, before: unknown, after: unknown): Counts {
  const next: Counts = { ...(current as Counts) };
  const was = (before ?? {}) as Counts;
  const now = (after ?? {}) as Counts;
  for (const model of new Set([...Object.keys(was), ...Object.keys(now)])) {
    if (was[model] === now[model]) continue;
    if (now[model] === undefined) delete next[model];
    else next[model] = now[model];
  }
  return next;
}

/** The own source settings kept while in a group: without the own API endpoint, which stays the user's. */
interface OwnSettings {
  openai_web: Record<string, unknown>;
  openai_api: Record<string, unknown>;
  /** The user's budgets before joining (currency units); absent in settings kept before budgets existed. */
  budgets?: GroupBudgets;
}

function budgetsOf(row: UserSettingsRow): GroupBudgets {
  return {
    credits: fromMicros(Number(row.budget_total)),
    daily_budget: fromMicros(Number(row.budget_daily)),
    monthly_budget: fromMicros(Number(row.budget_monthly)),
  };
}

function ownOf(row: UserSettingsRow): string {
  const { custom_openai_api_settings: _custom, ...api } = JSON.parse(row.openai_api) as StoredApi;
  return JSON.stringify({
    openai_web: JSON.parse(row.openai_web) as StoredWeb,
    openai_api: api,
    budgets: budgetsOf(row),
  });
}

/** A leaving member's budgets: each one that still has the group's value gets the user's own back. */
export function budgetsWithoutTemplate(
  current: GroupBudgets,
  template: GroupTemplate,
  own: GroupBudgets | undefined,
): GroupBudgets {
  const next = { ...current };
  if (!own || !template.budgets) return next;
  for (const key of BUDGET_KEYS) if (next[key] === template.budgets[key]) next[key] = own[key];
  return next;
}

/**
 * A leaving member's source settings: each field that still has the group's value gets the user's own value back
 * (from before joining); a field set on the user while in the group stays. The asks left stay as they are.
 */
export function withoutTemplate(
  stored: { openai_web: StoredWeb; openai_api: StoredApi },
  template: GroupTemplate,
  own: OwnSettings,
): { openai_web: StoredWeb; openai_api: StoredApi } {
  const next = structuredClone(stored);
  for (const source of ['openai_web', 'openai_api'] as const) {
    const target = next[source] as Record<string, unknown>;
    const group = template[source] as Record<string, unknown>;
    for (const [key, value] of Object.entries(own[source])) {
      if (COUNTS.has(key) || !(key in group)) continue;
      if (isDeepStrictEqual(target[key], group[key])) target[key] = structuredClone(value);
    }
  }
  return next;
}

/** A member leaves a group (moved out, or the group deleted): their own settings come back where they follow it. */
export async function leaveTemplate(db: Executor, userId: number, template: GroupTemplate): Promise<void> {
  const settings = userSettingRepository(db);
  const row = await settings.findByUserId(userId);
  if (!row?.own_settings) return;
  const own = JSON.parse(row.own_settings) as OwnSettings;
  const next = withoutTemplate(
    {
      openai_web: JSON.parse(row.openai_web) as StoredWeb,
      openai_api: JSON.parse(row.openai_api) as StoredApi,
    },
    template,
    own,
  );
  const budgets = budgetsWithoutTemplate(budgetsOf(row), template, own.budgets);
  await settings.update(userId, {
    budget_total: toMicros(budgets.credits),
    budget_daily: toMicros(budgets.daily_budget),
    budget_monthly: toMicros(budgets.monthly_budget),
    openai_web: JSON.stringify(next.openai_web),
    openai_api: JSON.stringify(next.openai_api),
  });
  await settings.setOwnSettings(userId, null);
}

/**
 * Applies a group's template to one member's settings and counters, in the caller's transaction. On joining from
 * no group, the user's own source settings are kept for when they leave.
 */
export async function applyTemplate(
  ctx: AppContext,
  db: Executor,
  userId: number,
  template: GroupTemplate,
  previous: GroupTemplate | null,
): Promise<void> {
  const row = await userSettingRepository(db).findByUserId(userId);
  if (!row) return;
  if (previous === null && row.own_settings === null)
    await userSettingRepository(db).setOwnSettings(userId, ownOf(row));
  const counters = await quotaRepository(db).listForUsers([userId]);
  const current = joinSettings(row, counters);
  const sealed = sealedCustomKey(row);
  // The sealed key goes back as the mask, which keeps it.
  current.openai_api.custom_openai_api_settings.key = sealed ? MASKED_SECRET : null;
  const own = row.own_settings ? (JSON.parse(row.own_settings) as OwnSettings).budgets : undefined;
  const { stored, counters: next } = splitSettings(
    ctx.secretBox,
    withTemplate(current, template, previous, own),
    sealed,
  );
  await userSettingRepository(db).update(userId, stored);
  // The counters are rewritten only when the group changes them: an ask reserved meanwhile is not undone.
  const key = (rows: { source: string; model: string; remaining: number }[]) =>
    JSON.stringify(rows.map((c) => `${c.source}/${c.model}=${c.remaining}`).sort());
  if (key(next) !== key(counters)) await quotaRepository(db).replaceForUser(userId, next);
}
