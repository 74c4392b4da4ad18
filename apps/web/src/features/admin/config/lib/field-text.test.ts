import { ConfigWrite } from '@cc/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { i18n } from '../../../../i18n';
import { fieldText, optionText, pathLabel } from './field-text';
import { describeField } from './json-schema';
import type { JsonSchema } from './json-schema';

type Path = (string | number)[];

/** Every field path of a schema below its sections (objects, and the fields of list items), with its enums. */
function fieldPaths(schema: JsonSchema, path: Path = []): { path: Path; enums: unknown[] }[] {
  const field = describeField(schema);
  const out: { path: Path; enums: unknown[] }[] = [];
  if (path.length >= 2)
    out.push({ path, enums: [...(field.schema.enum ?? []), ...(field.schema.items?.enum ?? [])] });
  if (field.kind === 'object')
    for (const [key, child] of Object.entries(field.schema.properties ?? {}))
      out.push(...fieldPaths(child, [...path, key]));
  if (field.kind === 'objectArray' && field.schema.items) {
    const item = describeField(field.schema.items);
    for (const [key, child] of Object.entries(item.schema.properties ?? {}))
      out.push(...fieldPaths(child, [...path, 0, key]));
  }
  return out;
}

const schema = z.toJSONSchema(ConfigWrite, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
const exists = (key: string) => i18n.exists(key);

describe('config field texts', () => {
  for (const language of ['en-US', 'zh-CN']) {
    it(`gives every config field a label and help in ${language}, never its raw key`, async () => {
      await i18n.changeLanguage(language);
      const paths = fieldPaths(schema);
      expect(paths.length).toBeGreaterThan(60);
      const missing = paths
        .map(({ path }) => ({ path: path.join('.'), text: fieldText(i18n.t, exists, path) }))
        .filter(({ path, text }) => text.label === path.split('.').pop() || !text.help)
        .map(({ path }) => path);
      expect(missing).toEqual([]);
    });

    it(`names every choice in ${language}: upload strategies, log levels and models`, async () => {
      await i18n.changeLanguage(language);
      const values = [...new Set(fieldPaths(schema).flatMap(({ enums }) => enums.map(String)))];
      expect(values).toContain('browser_upload_only');
      expect(values).toContain('gpt_4_browsing');
      const raw = values.filter((v) => optionText(i18n.t, exists, v) === v);
      expect(raw).toEqual([]);
    });
  }

  it('numbers list items and names models as elsewhere; an error path reads as labels', async () => {
    await i18n.changeLanguage('en-US');
    expect(fieldText(i18n.t, exists, ['user_defaults', 'openai_web', 'rate_limits', 1]).label).toBe(
      'Rate limits #2',
    );
    expect(fieldText(i18n.t, exists, ['openai_web', 'model_code_mapping', 'gpt_4']).label).toBe('GPT-4');
    expect(fieldText(i18n.t, exists, ['openai_web', 'ask_timeout']).label).toBe('Answer timeout (seconds)');
    expect(
      pathLabel(
        i18n.t,
        exists,
        'user_defaults.openai_web.rate_limits.0.window_seconds',
        () => 'Defaults of new users',
      ),
    ).toBe('Defaults of new users › OpenAI Web (account) › Rate limits #1 › Window (seconds)');
  });
});
