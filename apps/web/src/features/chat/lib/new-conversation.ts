import { NewConversationForm, SOURCES } from '@cc/contracts';
import type { ChatSource, UserRead } from '@cc/contracts';
import type { NewConversationForm as Form } from '@cc/contracts';

export interface FormState {
  title: string;
  source: ChatSource | null;
  model: string | null;
  plugins: string[];
}

/** Only web + gpt_4_plugins takes plugins (SPEC §4). */
export function needsPlugins(source: ChatSource | null, model: string | null): boolean {
  return source === 'openai_web' && model === 'gpt_4_plugins';
}

export function allowedSources(user: UserRead | undefined): ChatSource[] {
  return SOURCES.filter((s) => user?.setting[s].allow_to_use);
}

/**
 * SPEC §4 defaults: the last selected source if still allowed, else the first allowed one; the last selected
 * model if that source still offers it.
 */
export function initialFormState(
  user: UserRead | undefined,
  lastSource: string | null,
  lastModel: string | null,
): FormState {
  const allowed = allowedSources(user);
  const source = allowed.includes(lastSource as ChatSource)
    ? (lastSource as ChatSource)
    : (allowed[0] ?? null);
  const models: readonly string[] = source && user ? user.setting[source].available_models : [];
  const model = lastModel && models.includes(lastModel) ? lastModel : null;
  return { title: '', source, model, plugins: [] };
}

/** Changing the source clears the model (and the plugins). */
export function changeSource(state: FormState, source: ChatSource | null): FormState {
  return { ...state, source, model: null, plugins: [] };
}

/** Any combination other than web + gpt_4_plugins clears the plugin list. */
export function changeModel(state: FormState, model: string | null): FormState {
  return { ...state, model, plugins: needsPlugins(state.source, model) ? state.plugins : [] };
}

export type FormErrors = Partial<Record<'source' | 'model' | 'plugins', string>>;

/** Validates with the contract's schema: model required, at most 3 plugins (submission blocked). */
export function validateForm(
  state: FormState,
): { ok: true; value: Form } | { ok: false; errors: FormErrors } {
  const parsed = NewConversationForm.safeParse({
    title: state.title.trim() || undefined,
    source: state.source ?? undefined,
    model: state.model ?? '',
    openaiWebPlugins: needsPlugins(state.source, state.model) ? state.plugins : [],
  });
  if (parsed.success) return { ok: true, value: parsed.data };
  const errors: FormErrors = {};
  for (const issue of parsed.error.issues) {
    const field = issue.path[0];
    if (field === 'model') errors.model = 'validation.modelRequired';
    else if (field === 'openaiWebPlugins') errors.plugins = 'validation.pluginCountExceeded';
    else if (field === 'source') errors.source = 'validation.modelRequired';
  }
  return { ok: false, errors };
}
