import type { ChatSource, UserSetting, UserSettingUpdate } from '@cc/contracts';

/** The settings a bulk action changes on every selected user; a field left undefined is not touched. */
export interface BulkSettingsPatch {
  source: ChatSource;
  /** Adds asks to the total left (unlimited stays unlimited). */
  addAsks?: number;
  /** Sets the total asks left (-1 = unlimited). */
  totalAskCount?: number;
  allowToUse?: boolean;
  /** ISO time, or null for no end. */
  validUntil?: string | null;
}

/** True when the patch changes anything. */
export function isEmptyPatch(patch: BulkSettingsPatch): boolean {
  return (
    patch.addAsks === undefined &&
    patch.totalAskCount === undefined &&
    patch.allowToUse === undefined &&
    patch.validUntil === undefined
  );
}

/**
 * A user's whole settings write with the patch applied to one source; everything else (the other source,
 * credits, the masked custom key, which the server keeps) is sent back as read.
 */
export function applySettingsPatch(setting: UserSetting, patch: BulkSettingsPatch): UserSettingUpdate {
  const update: UserSettingUpdate = {
    credits: setting.credits,
    openai_web: structuredClone(setting.openai_web),
    openai_api: structuredClone(setting.openai_api),
  };
  const source = update[patch.source];
  if (patch.totalAskCount !== undefined) source.total_ask_count = patch.totalAskCount;
  if (patch.addAsks !== undefined && source.total_ask_count !== -1)
    source.total_ask_count = Math.max(0, source.total_ask_count + patch.addAsks);
  if (patch.allowToUse !== undefined) source.allow_to_use = patch.allowToUse;
  if (patch.validUntil !== undefined) source.valid_until = patch.validUntil;
  return update;
}
