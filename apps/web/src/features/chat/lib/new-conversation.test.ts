import { describe, expect, it } from 'vitest';
import type { UserRead } from '@cc/contracts';
import { changeModel, changeSource, initialFormState, validateForm } from './new-conversation';

function user(webAllowed = true, apiAllowed = true): UserRead {
  return {
    setting: {
      openai_web: { allow_to_use: webAllowed, available_models: ['gpt_3_5', 'gpt_4', 'gpt_4_plugins'] },
      openai_api: { allow_to_use: apiAllowed, available_models: ['gpt_3_5'] },
    },
  } as unknown as UserRead;
}

describe('new conversation form', () => {
  it('restores the last source and model when still allowed', () => {
    expect(initialFormState(user(), 'openai_api', 'gpt_3_5')).toMatchObject({
      source: 'openai_api',
      model: 'gpt_3_5',
    });
    expect(initialFormState(user(), 'openai_web', 'gpt_4_dalle')).toMatchObject({
      source: 'openai_web',
      model: null,
    });
  });

  it('falls back to the first allowed source', () => {
    expect(initialFormState(user(false, true), 'openai_web', 'gpt_4')).toMatchObject({
      source: 'openai_api',
      model: null,
    });
    expect(initialFormState(user(), null, null).source).toBe('openai_web');
    expect(initialFormState(user(false, false), null, null).source).toBeNull();
  });

  it('clears the model on a source change and the plugins off web + gpt_4_plugins', () => {
    const s = { title: '', source: 'openai_web' as const, model: 'gpt_4_plugins', plugins: ['a'] };
    expect(changeSource(s, 'openai_api')).toMatchObject({ model: null, plugins: [] });
    expect(changeModel(s, 'gpt_4').plugins).toEqual([]);
    expect(changeModel(s, 'gpt_4_plugins').plugins).toEqual(['a']);
  });

  it('requires a model and blocks more than 3 plugins; a blank title is left out', () => {
    expect(validateForm({ title: '', source: 'openai_web', model: null, plugins: [] })).toEqual({
      ok: false,
      errors: { model: 'validation.modelRequired' },
    });
    expect(
      validateForm({
        title: '',
        source: 'openai_web',
        model: 'gpt_4_plugins',
        plugins: ['a', 'b', 'c', 'd'],
      }),
    ).toEqual({ ok: false, errors: { plugins: 'validation.pluginCountExceeded' } });
    const ok = validateForm({
      title: '  ',
      source: 'openai_web',
      model: 'gpt_4_plugins',
      plugins: ['a', 'b', 'c'],
    });
    expect(ok).toEqual({
      ok: true,
      value: {
        title: undefined,
        source: 'openai_web',
        model: 'gpt_4_plugins',
        openaiWebPlugins: ['a', 'b', 'c'],
      },
    });
  });
});
