import { isDeepStrictEqual } from 'node:util';
import { MASKED_SECRET } from '@cc/contracts';
import type { GroupTemplate, UserSetting, UserSettingUpdate } from '@cc/contracts';
import type { AppContext } from '../app-context';
import type { UserGroupRow } from '../db/schema';
import { joinSettings } from '../presenters/user.presenter';
import type { Executor } from '../repositories/executor';
import { quotaRepository } from '../repositories/quota.repository';
import { userSettingRepository } from '../repositories/user-setting.repository';
import { sealedCustomKey, splitSettings } from './user-settings';

/** A stored group's template. */
export function templateOf(row: UserGroupRow): GroupTemplate {
  return {
    openai_web: JSON.parse(row.openai_web) as GroupTemplate['openai_web'],
    openai_api: JSON.parse(row.openai_api) as GroupTemplate['openai_api'],
  };
}

/** The asks left: consumed as the user asks, so they follow every change the group makes to them. */
const COUNTS = new Set(['total_ask_count', 'per_model_ask_count']);

/**
 * A member's settings with the group's template applied. Joining (`previous` null): every field of the template.
 * A group change: each field the change touches, for members who still had the group's previous value there; a
 * field set differently on the user stays theirs. The asks left follow every change of the group's counts.
 * Credits, the own API endpoint and key stay the user's.
 */
export function withTemplate(
  current: UserSetting,
  template: GroupTemplate,
  previous: GroupTemplate | null,
): Omit<UserSettingUpdate, 'openai_web_chat_status'> {
  const next = structuredClone(current);
  const copy = <S extends 'openai_web' | 'openai_api'>(source: S) => {
    const target = next[source] as Record<string, unknown>;
    const from = template[source] as Record<string, unknown>;
    const before = previous?.[source] as Record<string, unknown> | undefined;
    for (const [key, value] of Object.entries(from)) {
      const follows =
        !before ||
        (!isDeepStrictEqual(before[key], value) &&
          (COUNTS.has(key) || isDeepStrictEqual(target[key], before[key])));
      if (follows) target[key] = structuredClone(value);
    }
  };
  copy('openai_web');
  copy('openai_api');
  return { credits: next.credits, openai_web: next.openai_web, openai_api: next.openai_api };
}

/** Applies a group's template to one member's settings and counters, in the caller's transaction. */
export async function applyTemplate(
  ctx: AppContext,
  db: Executor,
  userId: number,
  template: GroupTemplate,
  previous: GroupTemplate | null,
): Promise<void> {
  const row = await userSettingRepository(db).findByUserId(userId);
  if (!row) return;
  const counters = await quotaRepository(db).listForUsers([userId]);
  const current = joinSettings(row, counters);
  const sealed = sealedCustomKey(row);
  // The sealed key goes back as the mask, which keeps it.
  current.openai_api.custom_openai_api_settings.key = sealed ? MASKED_SECRET : null;
  const { stored, counters: next } = splitSettings(
    ctx.secretBox,
    withTemplate(current, template, previous),
    sealed,
  );
  await userSettingRepository(db).update(userId, stored);
  await quotaRepository(db).replaceForUser(userId, next);
}
